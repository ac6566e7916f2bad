// Two routes into one helper's sink: the taint analysis gives one trace per entry function, so
// the analyzer hands the scanner two findings at the same place, told apart by `raw.entry` and
// by where their traces start. A scan reports one finding per entry point.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defaultAnalyzers } from "./registry";
import { runAnalyzers } from "../run";
import { removeDir, tempDir } from "../../test/git-fixtures";
import { analyzeCheckout } from "./dataflow";

const USERS = `package app;
public class Users {
  public static void find(java.sql.Statement stmt, String name) throws Exception {
    stmt.executeQuery("select * from users where name='" + name + "'");
  }
}
`;

const ROUTE = (cls: string, input: string) => `package app;
public class ${cls} extends HttpServlet {
  public void doGet(HttpServletRequest request, java.sql.Statement stmt) throws Exception {
    Users.find(stmt, ${input});
  }
}
`;

let dir: string;
beforeAll(() => {
  dir = tempDir("ax-dataflow-entries-");
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "src", "Users.java"), USERS);
  writeFileSync(join(dir, "src", "SearchServlet.java"), ROUTE("SearchServlet", `request.getParameter("q")`));
  writeFileSync(join(dir, "src", "LookupServlet.java"), ROUTE("LookupServlet", `request.getHeader("X-User")`));
});
afterAll(() => removeDir(dir));

it("gives one finding per entry function at a helper's sink, each with its own trace", async () => {
  const files = ["src/Users.java", "src/SearchServlet.java", "src/LookupServlet.java"];
  const findings = (await analyzeCheckout(dir, files)).findings.filter((f) => f.cwe_id === "CWE-89");
  expect(findings.map((f) => [f.file, f.start_line])).toEqual([
    ["src/Users.java", 4],
    ["src/Users.java", 4],
  ]);
  const entries = findings.map((f) => (f.raw as { entry?: string }).entry).sort();
  expect(entries).toEqual(["src/LookupServlet.java#app.LookupServlet.doGet", "src/SearchServlet.java#app.SearchServlet.doGet"]);
  expect(findings.map((f) => f.dataflow?.trace[0]?.file).sort()).toEqual(["src/LookupServlet.java", "src/SearchServlet.java"]);
});

it("a scan reports the sink once per entry point: two confirmed findings, each with its route, with stable distinct fingerprints", async () => {
  const scan = () => runAnalyzers({ dir, analyzers: defaultAnalyzers(), timeoutMs: 120_000, maxOutputBytes: 10_000_000 });
  const result = await scan();
  const sql = result.findings.filter((f) => f.cwe_id === "CWE-89" && f.file === "src/Users.java");
  expect(sql.map((f) => [f.start_line, f.dataflow?.status, f.dataflow?.entry]).sort()).toEqual([
    [4, "confirmed", "src/LookupServlet.java#app.LookupServlet.doGet"],
    [4, "confirmed", "src/SearchServlet.java#app.SearchServlet.doGet"],
  ]);
  // Each carries its own trace, and the pattern rule that matched the sink confirms both.
  expect(sql.map((f) => f.dataflow?.trace[0]?.file).sort()).toEqual(["src/LookupServlet.java", "src/SearchServlet.java"]);
  for (const f of sql) expect(f.sources?.map((s) => s.analyzer)).toEqual(expect.arrayContaining(["ast-grep", "dataflow"]));
  expect(new Set(sql.map((f) => f.fingerprint)).size).toBe(2);
  // The same code scanned again: the same two fingerprints, whatever order the traces came in.
  const again = (await scan()).findings.filter((f) => f.cwe_id === "CWE-89" && f.file === "src/Users.java");
  expect(again.map((f) => f.fingerprint).sort()).toEqual(sql.map((f) => f.fingerprint).sort());
});
