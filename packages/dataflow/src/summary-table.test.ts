// The rounds' summary table: a round's updates are compared one by one, with the answers the
// whole-table comparison gave (a fixed point by counts and origins; "changed" for readers
// only when not identical; a NaN constant never the same).
import type { TraceStep } from "@ax/contracts";
import type { Summary } from "./summary";
import { sameSummary, SummaryTable } from "./summary-table";
import type { Fact } from "./values";

const step = (line: number): TraceStep => ({ file: "A.java", line, column: 1, kind: "source", label: `line ${line}` }) as TraceStep;
const fact = (line: number): Fact => ({
  origin: { kind: "source", rule: "r", label: "input", sourceKind: "remote", at: "A.java:1" },
  steps: [step(line)],
  clean: new Set(),
});
const summary = (facts: Fact[], konst?: number): Summary => ({
  ret: { facts, ...(konst === undefined ? {} : { konst: { v: konst } }) },
  sinks: [],
  fieldWrites: [],
});

describe("SummaryTable", () => {
  it("reports a new key as a change, then the same summaries as a fixed point with nothing changed", () => {
    const table = new SummaryTable();
    const a = summary([fact(3)]);
    const first = table.update(new Map([["A#.f/0@1", a]]), true);
    expect(first.same).toBe(false);
    expect([...first.changed]).toEqual(["A#.f/0@1"]);
    const again = table.update(new Map([["A#.f/0@1", a]]), true);
    expect(again.same).toBe(true);
    expect(again.changed.size).toBe(0);
    expect(table.current.get("A#.f/0@1")).toBe(a);
  });

  it("tells a reader of a summary whose trace step moved that it changed, though the rounds count it the same", () => {
    const table = new SummaryTable();
    table.update(new Map([["k", summary([fact(3)])]]), true);
    const moved = table.update(new Map([["k", summary([fact(4)])]]), true);
    expect(moved.same).toBe(true);
    expect([...moved.changed]).toEqual(["k"]);
  });

  it("tells a reader nothing when asked not to track, and still sees a new returned fact", () => {
    const table = new SummaryTable();
    table.update(new Map([["k", summary([])]]), false);
    const more = table.update(new Map([["k", summary([fact(3)])]]), false);
    expect(more.same).toBe(false);
    expect(more.changed.size).toBe(0);
  });

  it("never reaches a fixed point while any summary, updated or not, returns NaN", () => {
    const table = new SummaryTable();
    table.update(
      new Map([
        ["nan", summary([], NaN)],
        ["one", summary([], 1)],
      ]),
      true,
    );
    const one = table.current.get("one")!;
    expect(table.update(new Map([["one", one]]), true).same).toBe(false);
    table.update(new Map([["nan", summary([], 2)]]), true);
    expect(table.update(new Map([["one", one]]), true).same).toBe(true);
  });
});

describe("sameSummary", () => {
  it("compares returned facts by origin and cleaning, and constants by value", () => {
    const cleaned: Fact = { ...fact(3), clean: new Set(["CWE-89"]) };
    expect(sameSummary(summary([fact(3)]), summary([fact(9)]))).toBe(true);
    expect(sameSummary(summary([fact(3)]), summary([cleaned]))).toBe(false);
    expect(sameSummary(summary([], 1), summary([], 2))).toBe(false);
    const nan = summary([], NaN);
    expect(sameSummary(nan, nan)).toBe(false);
  });
});
