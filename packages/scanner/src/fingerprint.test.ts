import type { NormalizedFinding } from "@ax/contracts";
import { fingerprintFindings, normalizeCode } from "./fingerprint";

function finding(over: Partial<NormalizedFinding> & { text: string }): NormalizedFinding {
  const { text, ...rest } = over;
  return {
    analyzer: "ast-grep",
    rule_id: "js-eval",
    title: "eval",
    message: "eval",
    cwe_id: "CWE-95",
    cwe_name: null,
    owasp: null,
    file: "src/a.js",
    start_line: 1,
    end_line: 1,
    start_column: 1,
    end_column: 10,
    snippet: text,
    severity: "HIGH",
    confidence: "MEDIUM",
    likelihood: null,
    impact: null,
    remediation: null,
    fingerprint: "",
    raw: { text },
    ...rest,
  };
}

it("drops whitespace from the matched code", () => {
  expect(normalizeCode("eval(\n    x +  y\n  )")).toBe("eval(x+y)");
});

it("is stable when unrelated lines move", () => {
  const before = fingerprintFindings([
    finding({ text: "eval(a)", start_line: 3 }),
    finding({ text: "eval(b)", start_line: 9 }),
    finding({ text: "eval(a)", start_line: 20 }),
  ]);
  // 10 blank lines and a new function inserted above everything; one call also reformatted.
  const after = fingerprintFindings([
    finding({ text: "eval(a)", start_line: 13 }),
    finding({ text: "eval(\n  b\n)", start_line: 19, end_line: 21 }),
    finding({ text: "eval(a)", start_line: 30 }),
  ]);
  expect(after.map((f) => f.fingerprint)).toEqual(before.map((f) => f.fingerprint));
});

it("changes when the matched code, the rule or the file changes", () => {
  const [base] = fingerprintFindings([finding({ text: "eval(a)" })]);
  const [code] = fingerprintFindings([finding({ text: "eval(a + 1)" })]);
  const [rule] = fingerprintFindings([finding({ text: "eval(a)", rule_id: "other" })]);
  const [file] = fingerprintFindings([finding({ text: "eval(a)", file: "src/b.js" })]);
  const prints = [base, code, rule, file].map((f) => f?.fingerprint);
  expect(new Set(prints).size).toBe(4);
  expect(base?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
});

it("gives identical code in one file distinct fingerprints by occurrence, in line order", () => {
  const out = fingerprintFindings([finding({ text: "eval(a)", start_line: 50 }), finding({ text: "eval(a)", start_line: 5 })]);
  expect(new Set(out.map((f) => f.fingerprint)).size).toBe(2);
  // The earlier line is occurrence 0 whatever the input order.
  const [alone] = fingerprintFindings([finding({ text: "eval(a)", start_line: 5 })]);
  expect(out[1]?.fingerprint).toBe(alone?.fingerprint);
});

it("falls back to the snippet when the tool reports no matched text", () => {
  const a = finding({ text: "x", snippet: "strcpy(buf, src);", raw: {} });
  const b = finding({ text: "y", snippet: "strcpy(buf,   src);", raw: null, start_line: 40 });
  expect(fingerprintFindings([a])[0]?.fingerprint).toBe(fingerprintFindings([b])[0]?.fingerprint);
});

it("keeps input order and does not mutate the input", () => {
  const input = [finding({ text: "eval(b)", start_line: 9 }), finding({ text: "eval(a)", start_line: 3 })];
  const out = fingerprintFindings(input);
  expect(out.map((f) => f.start_line)).toEqual([9, 3]);
  expect(input.every((f) => f.fingerprint === "")).toBe(true);
});
