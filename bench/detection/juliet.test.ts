import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { tmpDir } from "@ax/testkit/temp";
import { scoreCastle } from "./castle";
import { acceptedCwes } from "./cwe";
import { indexDeclarations, type DeclarationIndex } from "./functions";
import { average, flowOfClass, flowOfName, scoreJuliet, testCaseOf, type ScoredFinding } from "./juliet";
import { scanTree } from "./scan";

const FOLDER = "testcases/CWE78_OS_Command_Injection";
const CASE = "CWE78_OS_Command_Injection__Environment_01";

/** A Juliet-like test case split over two files: a/ the flawed bad(), b/ the safe goodG2B(). */
const BAD_FILE = `package testcases.CWE78_OS_Command_Injection;

public class ${CASE}a {
    public void bad() throws Throwable {
        String data;
        /* POTENTIAL FLAW: Read data from an environment variable */
        data = System.getenv("ADD");
        /* POTENTIAL FLAW: command injection */
        Process process = Runtime.getRuntime().exec("/bin/ls " + data);
        process.waitFor();
    }
}
`;

const GOOD_FILE = `package testcases.CWE78_OS_Command_Injection;

public class ${CASE}b {
    public void good() throws Throwable {
        goodG2B();
    }

    private void goodG2B() throws Throwable {
        String data;
        /* FIX: Use a hardcoded string */
        data = "foo";
        Process process = Runtime.getRuntime().exec("/bin/ls " + data);
        process.waitFor();
    }
}
`;

async function write(root: string, rel: string, text: string): Promise<void> {
  await mkdir(dirname(join(root, rel)), { recursive: true });
  await writeFile(join(root, rel), text);
}

describe("Juliet scorer on a synthetic test case", () => {
  let dir = "";

  beforeAll(async () => {
    dir = tmpDir("ax-bench-juliet-");
    await write(dir, `${FOLDER}/${CASE}a.java`, BAD_FILE);
    await write(dir, `${FOLDER}/${CASE}b.java`, GOOD_FILE);
  });

  it("finds the bad and good functions with the parser", async () => {
    const index = await indexDeclarations(dir, "java");
    const names = [...index.entries()].map(([file, decls]) => [file, decls.filter((d) => d.kind === "function").map((d) => d.name)]);
    expect(names.sort()).toEqual([
      [`${FOLDER}/${CASE}a.java`, ["bad"]],
      [`${FOLDER}/${CASE}b.java`, ["good", "goodG2B"]],
    ]);
  });

  it("scores the product's findings: the bad function is a TP, the good one is not flagged", async () => {
    const scan = await scanTree(dir, { only: ["ast-grep"], timeoutMs: 50_000 });
    expect(scan.analyzers).toEqual([expect.objectContaining({ name: "ast-grep", status: "completed" })]);
    const index = await indexDeclarations(dir, "java");
    const rows = scoreJuliet(index, scan.findings, { language: "java", coveredCwes: new Set([78]) });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ cwe: 78, inScope: true, testCases: 1, bad: 1, good: 1, tp: 1, fp: 0, tpr: 1, fpr: 0, score: 1 });
    expect(rows[0]?.rules).toEqual({ "ast-grep:java-command-injection": { tp: 1, fp: 0 } });
  });
});

describe("Juliet scoring rules", () => {
  const decls: DeclarationIndex = new Map([
    [
      `${FOLDER}/${CASE}.java`,
      [
        { kind: "class", name: CASE, startLine: 1, endLine: 60 },
        { kind: "function", name: "bad", startLine: 2, endLine: 10 },
        { kind: "function", name: "good", startLine: 11, endLine: 14 },
        { kind: "function", name: "goodG2B", startLine: 15, endLine: 25 },
        { kind: "function", name: "goodB2G", startLine: 26, endLine: 35 },
        { kind: "function", name: "goodB2GSink", startLine: 36, endLine: 45 },
        { kind: "function", name: "main", startLine: 50, endLine: 55 },
      ],
    ],
  ]);
  const finding = (line: number, cwe: string | null, rule = "r"): ScoredFinding => ({
    analyzer: "ast-grep",
    rule_id: rule,
    cwe_id: cwe,
    file: `${FOLDER}/${CASE}.java`,
    start_line: line,
  });

  it("counts a finding for the folder's CWE (or a parent/child) in its flow, and nothing else", () => {
    const rows = scoreJuliet(
      decls,
      [
        finding(5, "CWE-78"), // bad → TP
        finding(6, "CWE-77"), // parent of 78, same bad function: still one TP
        finding(40, "CWE-78"), // goodB2GSink → the goodB2G function is a FP
        finding(20, "CWE-89"), // another CWE in goodG2B: reported, not scored
        finding(52, "CWE-78"), // main(): neither bad nor good
      ],
      { language: "java", coveredCwes: new Set([78]) },
    );
    expect(rows[0]).toMatchObject({ bad: 1, good: 2, tp: 1, fp: 1, tpr: 1, fpr: 0.5, score: 0.5, otherCweFindings: 1 });
    expect(average(rows)).toMatchObject({ cwes: 1, tpr: 1, fpr: 0.5, score: 0.5 });
  });

  it("marks a CWE in scope only when a covered CWE is the folder's or a direct parent", () => {
    expect(scoreJuliet(decls, [], { language: "java", coveredCwes: new Set([77]) })[0]?.inScope).toBe(true);
    expect(scoreJuliet(decls, [], { language: "java", coveredCwes: new Set([89]) })[0]?.inScope).toBe(false);
    expect(acceptedCwes(80)).toEqual([79, 80]);
    // CWE-23's own children in MITRE's view (CWE-24 '../filedir' … CWE-35) count too; its sibling CWE-36 does not.
    expect(acceptedCwes(23)).toEqual([22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35]);
    expect(acceptedCwes(23)).not.toContain(36);
    expect(acceptedCwes(259)).toEqual([259, 798]);
  });

  it("names flows and test cases like Juliet", () => {
    expect(testCaseOf("x/CWE78_OS_Command_Injection__Environment_51a.java")).toBe("CWE78_OS_Command_Injection__Environment_51");
    expect(testCaseOf("x/CWE78_OS_Command_Injection__Environment_81_goodG2B.java")).toBe("CWE78_OS_Command_Injection__Environment_81");
    expect(testCaseOf("x/CWE121_Stack_Based_Buffer_Overflow__CWE129_fgets_01.c")).toBe(
      "CWE121_Stack_Based_Buffer_Overflow__CWE129_fgets_01",
    );
    expect(testCaseOf("x/Main.java")).toBeNull();
    expect(["badSink", "bad_source", "helperBad"].map((n) => flowOfName(n, "java"))).toEqual(["bad", "bad", "bad"]);
    expect(["goodG2B1Source", "goodB2G2Sink", "good1", "goodG2B1_source"].map((n) => flowOfName(n, "java"))).toEqual([
      "goodG2B1",
      "goodB2G2",
      "good1",
      "goodG2B1",
    ]);
    expect(flowOfName("CWE121_Stack_Based_Buffer_Overflow__CWE129_fgets_52b_badSink", "c")).toBe("bad");
    expect(flowOfName("CWE121_Stack_Based_Buffer_Overflow__CWE129_fgets_01_good", "c")).toBe("good");
    expect(flowOfName("main", "c")).toBeNull();
    expect(flowOfClass("CWE78_OS_Command_Injection__Environment_81_goodG2B")).toBe("goodG2B");
  });
});

describe("CASTLE scoring", () => {
  it("counts flaw-line hits, any-line hits and flagged safe programs", () => {
    const tests = [
      { name: "CASTLE-1-1.c", id: "1-1", cwe: 1, vulnerable: true, lines: [5], code: "" },
      { name: "CASTLE-1-2.c", id: "1-2", cwe: 1, vulnerable: true, lines: [9], code: "" },
      { name: "CASTLE-1-3.c", id: "1-3", cwe: 1, vulnerable: false, lines: [], code: "" },
    ];
    const f = (file: string, start: number, end = start) => ({
      analyzer: "a",
      rule_id: "r",
      cwe_id: null,
      file,
      start_line: start,
      end_line: end,
    });
    const result = scoreCastle(tests, [f("CASTLE-1-1.c", 4, 6), f("CASTLE-1-2.c", 2), f("CASTLE-1-3.c", 1), f("CASTLE-1-3.c", 3)]);
    expect(result).toMatchObject({ vulnerable: 2, safe: 1, tp: 1, tpAnyLine: 2, fp: 1, fpFindings: 2, findings: 4 });
    expect(result.perRule).toEqual({ "a:r": { tp: 1, fp: 1 } });
  });
});
