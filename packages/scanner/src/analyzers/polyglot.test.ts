// Every analyzer of the registry, through the real runner (selection, cache, merging), on one
// polyglot checkout. ast-grep uses the fixture pack; the SARIF tool is a node script that
// prints SARIF (no semgrep here). Needs bandit, flawfinder, cppcheck and shellcheck installed.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runAnalyzers } from "../run";
import { defaultAnalyzers } from "./registry";
import { astGrepBinaryPath, writeFixtureRulePack } from "../../test/ast-grep-fixture";
import { requireTool, writeCheckout } from "../../test/analyzer-fixture";
import { removeDir, tempDir } from "../../test/git-fixtures";

let root: string;
beforeAll(() => {
  for (const tool of ["bandit", "flawfinder", "cppcheck", "shellcheck"]) requireTool(tool);
  root = tempDir();
});
afterAll(() => removeDir(root));

it("reports findings from every analyzer on a polyglot repository", async () => {
  const script = join(root, "todo-sarif.mjs");
  writeFileSync(
    script,
    `import { readFileSync } from "node:fs";
const results = process.argv.slice(2).flatMap((f) => readFileSync(f, "utf8").split("\\n").flatMap((l, i) => l.includes("TODO(security)")
  ? [{ ruleId: "todo", level: "note", message: { text: "security TODO" },
      locations: [{ physicalLocation: { artifactLocation: { uri: f }, region: { startLine: i + 1 } } }] }] : []));
process.stdout.write(JSON.stringify({ version: "2.1.0", runs: [{ tool: { driver: { name: "todo" } }, results }] }));
`,
  );
  // Built at run time: no credential-shaped literal in the source.
  const token = ["gh", "p_", "Zq8Lm2vR7zTa9Kd4Wn6Yb1Hc3Jf5Pg0Qs8Ux"].join("");
  const dir = writeCheckout(root, "repo", {
    "web/app.js": "// TODO(security): validate\nfunction run(input) {\n  return eval(input);\n}\n",
    "api/Users.java":
      'class Users {\n  void doGet(HttpServletRequest request, java.sql.Statement stmt) throws Exception {\n    String id = request.getParameter("id");\n' +
      '    String q = "select * from users where id=" + id;\n    stmt.executeQuery(q);\n  }\n}\n',
    "tools/task.py": "import subprocess\n\ndef go(cmd):\n    subprocess.call(cmd, shell=True)\n",
    "native/main.c": "#include <stdio.h>\nint main(void) {\n  char b[8];\n  gets(b);\n  int *q = 0;\n  *q = 1;\n  return 0;\n}\n",
    "scripts/deploy.sh": "#!/bin/sh\nrm -rf $1/*\n",
    "config/settings.env": `GITHUB_TOKEN=${token}\n`,
    "web/hello.jsp": '<p>Hello <%= request.getParameter("name") %></p>\n',
    "web/views/post.ejs": "<div><%- req.query.html %></div>\n",
  });
  const result = await runAnalyzers({
    dir,
    timeoutMs: 60_000,
    maxOutputBytes: 16 * 1024 * 1024,
    analyzers: defaultAnalyzers({
      astGrep: { binary: astGrepBinaryPath(), configPath: writeFixtureRulePack(join(root, "pack")) },
      sarifTools: [{ name: "todo-sarif", command: [process.execPath, script, "{files}"], languages: ["javascript"] }],
    }),
  });
  expect(Object.fromEntries(result.analyzers.map((a) => [a.name, a.status]))).toEqual({
    "ast-grep": "completed",
    dataflow: "completed",
    bandit: "completed",
    cppcheck: "completed",
    flawfinder: "completed",
    shellcheck: "completed",
    secrets: "completed",
    jsp: "completed",
    templates: "completed",
    "todo-sarif": "completed",
  });
  const reported = new Set(result.findings.flatMap((f) => (f.sources ?? [{ analyzer: f.analyzer }]).map((s) => s.analyzer)));
  expect([...reported].sort()).toEqual([
    "ast-grep",
    "bandit",
    "cppcheck",
    "dataflow",
    "flawfinder",
    "jsp",
    "secrets",
    "shellcheck",
    "templates",
    "todo-sarif",
  ]);
  const sql = result.findings.find((f) => f.file === "api/Users.java" && f.cwe_id === "CWE-89");
  expect(sql?.dataflow).toMatchObject({ status: "confirmed", source_kind: "remote" });
  expect(sql?.dataflow?.trace.map((s) => [s.kind, s.line])).toEqual([
    ["source", 3],
    ["step", 3],
    ["step", 4],
    ["sink", 5],
  ]);
  expect(result.findings.find((f) => f.rule_id === "secrets.github-token")).toMatchObject({
    file: "config/settings.env",
    severity: "HIGH",
  });
  expect(JSON.stringify(result.findings)).not.toContain(token);
  expect(result.findings.every((f) => f.fingerprint.length === 64)).toBe(true);
});
