// The dataflow analyzer inside a scan: its findings and verdicts, and cancellation of a run in
// progress (the analysis thread is ended and the next scan gets a working one).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defaultAnalyzers } from "./registry";
import { ScanAbortedError } from "../errors";
import { runAnalyzers } from "../run";
import { removeDir, tempDir } from "../../test/git-fixtures";
import { analyzeCheckout, dataflowAnalyzer, forgetKeptAnalyses, keptAnalyses } from "./dataflow";

const SERVLET = (n: number) => `package app;
public class Users${n} {
  public void doGet(HttpServletRequest request, java.sql.Statement stmt) throws Exception {
    String id = request.getParameter("id");
    stmt.executeQuery("select * from users where id=" + id);
    count(stmt, "users");
  }
  public void count(java.sql.Statement stmt, String table) throws Exception {
    stmt.executeQuery("select count(*) from " + table);
  }
}
`;

let root: string;
beforeAll(() => {
  root = tempDir("ax-dataflow-analyzer-");
});
afterAll(() => removeDir(root));

function repo(name: string, files: number): string {
  const dir = join(root, name);
  mkdirSync(join(dir, "src"), { recursive: true });
  for (let i = 0; i < files; i++) writeFileSync(join(dir, "src", `Users${i}.java`), SERVLET(i));
  return dir;
}

it("confirms the pattern finding on the tainted query, refutes the one its only caller fills with a constant", async () => {
  const dir = repo("one", 1);
  const result = await runAnalyzers({ dir, analyzers: defaultAnalyzers(), timeoutMs: 120_000, maxOutputBytes: 10_000_000 });
  const sql = result.findings.filter((f) => f.cwe_id === "CWE-89").map((f) => [f.start_line, f.confidence, f.dataflow?.status]);
  expect(sql).toEqual([[5, "HIGH", "confirmed"]]);
  // `count(stmt, "users")`: the analysis saw every caller of `count`, and none passes anything untrusted.
  expect(result.refuted.map((f) => [f.start_line, f.cwe_id, f.dataflow?.status])).toEqual([[9, "CWE-89", "refuted"]]);
  expect(result.refuted[0]?.dataflow?.reason).toMatch(/every call to the function holding it passes nothing untrusted/);
  expect(result.selection.refuted).toBe(1);
  expect(result.analyzers.find((a) => a.name === "dataflow")).toMatchObject({ status: "completed", findings: 1 });
});

it("keeps a pattern finding it cannot judge as unconfirmed: a parameter of a method nothing in the repository calls", async () => {
  const dir = join(root, "library");
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(
    join(dir, "src/Repo.java"),
    "package app;\npublic class Repo {\n  public void byName(java.sql.Statement stmt, String name) throws Exception {\n" +
      '    stmt.executeQuery("select * from users where name = \'" + name + "\'");\n  }\n}\n',
  );
  const result = await runAnalyzers({ dir, analyzers: defaultAnalyzers(), timeoutMs: 120_000, maxOutputBytes: 10_000_000 });
  const sql = result.findings.filter((f) => f.cwe_id === "CWE-89");
  expect(sql.map((f) => [f.start_line, f.confidence, f.dataflow?.status])).toEqual([[4, "LOW", "unconfirmed"]]);
  expect(sql[0]?.dataflow?.reason).toMatch(/parameters of a function nothing in the repository calls/);
  expect(result.refuted).toEqual([]);
});

it("stops when the scan is cancelled mid-analysis, and the next scan is analysed", async () => {
  const big = repo("big", 1500);
  const controller = new AbortController();
  const started = performance.now();
  const run = runAnalyzers({
    dir: big,
    analyzers: [dataflowAnalyzer()],
    timeoutMs: 120_000,
    maxOutputBytes: 10_000_000,
    signal: controller.signal,
  });
  setTimeout(() => controller.abort(), 300);
  await expect(run).rejects.toBeInstanceOf(ScanAbortedError);
  // Well before the analysis of 1,500 files could have finished.
  expect(performance.now() - started).toBeLessThan(5_000);

  const after = await runAnalyzers({
    dir: repo("after", 2),
    analyzers: [dataflowAnalyzer()],
    timeoutMs: 120_000,
    maxOutputBytes: 10_000_000,
  });
  expect(after.findings.map((f) => [f.file, f.start_line, f.rule_id])).toEqual([
    ["src/Users0.java", 5, "java-taint-sql"],
    ["src/Users1.java", 5, "java-taint-sql"],
  ]);
}, 60_000);

it("gives the same findings from lowered files it keeps, and follows a file that changed", async () => {
  const dir = repo("kept-lowering", 3);
  const key = (fs: { file: string; start_line: number; rule_id: string }[]) =>
    fs.map((f) => `${f.file}:${f.start_line}:${f.rule_id}`).sort();
  const first = (await analyzeCheckout(dir, ["src/Users0.java", "src/Users1.java", "src/Users2.java"])).findings;
  const again = (await analyzeCheckout(dir, ["src/Users0.java", "src/Users1.java", "src/Users2.java"])).findings;
  expect(first.length).toBeGreaterThan(0);
  expect(again).toEqual(first);
  // The tainted query of Users1 becomes a constant: its finding goes, the others stay.
  writeFileSync(join(dir, "src/Users1.java"), SERVLET(1).replace('"select * from users where id=" + id', '"select * from users"'));
  const changed = (await analyzeCheckout(dir, ["src/Users0.java", "src/Users1.java", "src/Users2.java"])).findings;
  expect(key(changed)).toEqual(key(first).filter((k) => !k.startsWith("src/Users1.java:5:")));
  expect(key(changed)).not.toEqual(key(first));
});

it("forgets the code it kept when told (a project was deleted), also during an analysis, with the same findings after", async () => {
  const files = Array.from({ length: 40 }, (_, i) => `src/Users${i}.java`);
  const dir = repo("forget", files.length);
  forgetKeptAnalyses(); // what the tests above kept
  const first = await analyzeCheckout(dir, files);
  expect(keptAnalyses()).toEqual({ files: files.length, memo: true });
  forgetKeptAnalyses();
  expect(keptAnalyses()).toEqual({ files: 0, memo: false });
  // Told while an analysis reads its files: what that analysis keeps goes when it ends.
  const during = analyzeCheckout(dir, files);
  forgetKeptAnalyses();
  expect(await during).toEqual(first);
  expect(keptAnalyses()).toEqual({ files: 0, memo: false });
  // The next analysis starts afresh and keeps again.
  expect(await analyzeCheckout(dir, files)).toEqual(first);
  expect(keptAnalyses()).toEqual({ files: files.length, memo: true });
});

it("analyses code whose names are those of Object.prototype's members (constructor, toString)", async () => {
  const dir = join(root, "proto-names");
  mkdirSync(dir, { recursive: true });
  // Receivers and callees named like inherited members: the module's imports are looked up
  // by these names, and must not find Object.prototype's functions.
  writeFileSync(
    join(dir, "app.js"),
    `const { exec } = require("child_process");
function handler(req, res) {
  const cmd = constructor.build(req.query.cmd);
  toString(cmd);
  exec(req.query.cmd);
}
module.exports = { handler };
`,
  );
  const { findings } = await analyzeCheckout(dir, ["app.js"]);
  expect(findings.map((f) => [f.file, f.start_line, f.cwe_id])).toContainEqual(["app.js", 5, "CWE-78"]);
});
