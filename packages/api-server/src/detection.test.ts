// End to end on the real stack (PostgreSQL, Redis, an in-process worker, git, ast-grep and
// the Debian analyzers): what the detection engine adds to a scan.
import fs from "node:fs";
import path from "node:path";
import request from "supertest";
import { commitFiles, git, makeGitRepo, tmpDir, waitFor } from "@ax/testkit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

let h: ApiHarness;
const key = () => ({ "X-AX-KEY": h.tenant.token });

interface F {
  finding_id: string;
  rule_id: string;
  analyzer: string;
  cwe_id: string | null;
  file: string;
  start_line: number;
  introduced: boolean | null;
  suppression: { reason: string } | null;
  has_fix: boolean;
  sources: { analyzer: string; rule_id: string }[];
  status: string;
}

interface ScanBody {
  scan_id: string;
  state: string;
  error: string | null;
  baseline_commit: string | null;
  diff: {
    baseline_commit: string;
    merge_base: string;
    fixed_total: number;
    fixed: { file: string; start_line: number; rule_id: string }[];
  } | null;
  analyzers: { name: string; status: string; files?: number; cached_files?: number }[];
  counts: Record<string, number>;
  selection: Record<string, unknown>;
}

async function scan(body: object): Promise<ScanBody> {
  const res = await request(h.app).post("/api/v2/scan").set(key()).send(body);
  expect(res.status).toBe(200);
  return waitFor(
    async () => {
      const r = await request(h.app).get(`/api/v2/scan/${res.body.scan_id}`).set(key());
      return ["completed", "failed", "cancelled"].includes(r.body.state) ? r.body : undefined;
    },
    { timeoutMs: 90_000, what: "scan" },
  );
}

async function findings(scanId: string, query = ""): Promise<F[]> {
  const r = await request(h.app).get(`/api/v2/scan/${scanId}/findings?limit=500${query}`).set(key());
  expect(r.status).toBe(200);
  return r.body.findings;
}

// A SARIF tool configured by the operator: a tiny script that reports one result per file.
const sarifTool = (() => {
  const dir = tmpDir("ax-sarif-tool-");
  const script = path.join(dir, "tool.mjs");
  fs.writeFileSync(
    script,
    "const files = process.argv.slice(2);\n" +
      'const rules = [{ id: "DEMO1", properties: { tags: ["external/cwe/cwe-489"] } }];\n' +
      "const location = (f) => ({ physicalLocation: { artifactLocation: { uri: f }, region: { startLine: 1 } } });\n" +
      'const results = files.map((f) => ({ ruleId: "DEMO1", level: "warning", message: { text: "demo finding" }, locations: [location(f)] }));\n' +
      'process.stdout.write(JSON.stringify({ version: "2.1.0", runs: [{ tool: { driver: { name: "demo", rules } }, results }] }));\n',
  );
  return JSON.stringify([{ name: "demo-sarif", command: [process.execPath, script, "{files}"], languages: ["go"] }]);
})();

beforeAll(async () => {
  h = await createApiHarness({ worker: true, env: { SARIF_TOOLS: sarifTool } });
});
afterAll(() => h.close());

describe("a polyglot repository", () => {
  let result: ScanBody;
  let all: F[];
  beforeAll(async () => {
    const repo = makeGitRepo({
      "web/app.js": "const crypto = require('crypto');\nmodule.exports = (p) => crypto.createHash('md5').update(p).digest('hex');\n",
      "svc/tasks.py": "import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n",
      "svc/cleanup.py": 'import subprocess\n\n\ndef cleanup():\n    return subprocess.call("rm -rf /tmp/cache", shell=True)\n',
      "native/copy.c":
        "#include <string.h>\n\nvoid copy(char *dst, const char *src) {\n  strcpy(dst, src);\n}\n\n" +
        "int idx(void) {\n  int a[4];\n  a[4] = 1;\n  return a[4];\n}\n",
      "deploy/run.sh": "#!/bin/sh\nrm -rf $1/cache\n",
      "config/settings.py":
        'AWS_ACCESS_KEY_ID = "AKIAQ4KXYZ7PLMN3TRWB"\nAWS_SECRET_ACCESS_KEY = "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"\n',
      "cmd/main.go": "package main\n\nfunc main() {}\n",
      "web/hello.jsp": '<%@ page contentType="text/html" %>\n<p>Hello <%= request.getParameter("name") %></p>\n',
      "web/views/post.ejs": "<div><%- req.query.html %></div>\n",
      "api/Users.java":
        "class Users {\n  void doGet(HttpServletRequest request, java.sql.Statement stmt) throws Exception {\n" +
        '    String id = request.getParameter("id");\n    String q = "select * from users where id=" + id;\n' +
        "    stmt.executeQuery(q);\n  }\n}\n",
    });
    result = await scan({ git_uri: repo });
    all = await findings(result.scan_id);
  });

  it("completes with every analyzer run", () => {
    expect(result.state).toBe("completed");
    const status = Object.fromEntries(result.analyzers.map((a) => [a.name, a.status]));
    expect(status).toEqual({
      "ast-grep": "completed",
      dataflow: "completed",
      bandit: "completed",
      flawfinder: "completed",
      cppcheck: "completed",
      shellcheck: "completed",
      secrets: "completed",
      jsp: "completed",
      templates: "completed",
      "demo-sarif": "completed",
    });
  });

  it("has findings from every analyzer", () => {
    const analyzers = new Set(all.flatMap((f) => f.sources.map((s) => s.analyzer)));
    expect([...analyzers].sort()).toEqual([
      "ast-grep",
      "bandit",
      "cppcheck",
      "dataflow",
      "demo-sarif",
      "flawfinder",
      "jsp",
      "secrets",
      "shellcheck",
      "templates",
    ]);
  });

  it("shows a confirmed flow's trace in the finding detail and as SARIF codeFlows", async () => {
    const sql = all.find((f) => f.file === "api/Users.java" && f.cwe_id === "CWE-89");
    expect(sql?.sources.map((s) => s.analyzer).sort()).toEqual(["ast-grep", "dataflow"]);
    const detail = await request(h.app).get(`/api/v2/scan/${result.scan_id}/finding/${sql!.finding_id}`).set(key());
    expect(detail.body).toMatchObject({ confidence: "HIGH", dataflow: { status: "confirmed", source_kind: "remote" } });
    const trace = (detail.body.dataflow.trace as { kind: string; line: number; file: string }[]).map((s) => [s.kind, s.file, s.line]);
    expect(trace).toEqual([
      ["source", "api/Users.java", 3],
      ["step", "api/Users.java", 3],
      ["step", "api/Users.java", 4],
      ["sink", "api/Users.java", 5],
    ]);
    const sarif = await request(h.app).get(`/api/v2/scan/${result.scan_id}/sarif`).set(key());
    const results = sarif.body.runs[0].results as {
      properties?: { dataflow?: string };
      codeFlows?: { threadFlows: { locations: unknown[] }[] }[];
      locations: { physicalLocation: { artifactLocation: { uri: string } } }[];
    }[];
    const flow = results.find(
      (r) => r.locations[0]?.physicalLocation.artifactLocation.uri === "api/Users.java" && r.properties?.dataflow === "confirmed",
    );
    expect(flow?.codeFlows?.[0]?.threadFlows[0]?.locations).toHaveLength(4);
  });

  it("marks a pattern finding the taint analysis found no untrusted path to as unconfirmed, at LOW confidence", async () => {
    // `cmd` is a plain parameter, not request input: nothing untrusted is known to reach it.
    const shell = all.find((f) => f.file === "svc/tasks.py" && f.cwe_id === "CWE-78");
    const detail = await request(h.app).get(`/api/v2/scan/${result.scan_id}/finding/${shell!.finding_id}`).set(key());
    expect(detail.body).toMatchObject({ confidence: "LOW", dataflow: { status: "unconfirmed", trace: [] } });
  });

  it("refutes a pattern match at a sink the taint analysis judged clean: not a finding anywhere, listed apart with the reason", async () => {
    // A constant command: the shell=True pattern matches, nothing untrusted can reach it.
    // (bandit's audit note on `import subprocess`, with no CWE, is not the sink and stays.)
    expect(all.filter((f) => f.file === "svc/cleanup.py" && f.cwe_id === "CWE-78")).toEqual([]);
    const refuted = await request(h.app).get(`/api/v2/scan/${result.scan_id}/refuted`).set(key());
    expect(refuted.status).toBe(200);
    const here = (
      refuted.body.refuted as { file: string; start_line: number; cwe_id: string; reason: string; sources: unknown[] }[]
    ).filter((r) => r.file === "svc/cleanup.py");
    expect(here.length).toBeGreaterThan(0);
    for (const r of here) {
      expect(r).toMatchObject({ start_line: 5, cwe_id: "CWE-78" });
      expect(r.reason).toMatch(/constants/);
    }
    expect(result.selection.refuted).toBe((refuted.body.refuted as unknown[]).length);
    // Not counted, not exported, not a finding under any filter.
    const listed = all.length;
    expect(result.counts.total).toBe(listed - all.filter((f) => f.suppression).length);
    const sarif = await request(h.app).get(`/api/v2/scan/${result.scan_id}/sarif`).set(key());
    type Result = { locations: { physicalLocation: { artifactLocation: { uri: string } } }[] };
    const uris = (sarif.body.runs as { results: Result[] }[]).flatMap((run) =>
      run.results.map((r) => r.locations[0]?.physicalLocation.artifactLocation.uri),
    );
    expect(uris.filter((u) => u === "svc/cleanup.py")).toHaveLength(all.filter((f) => f.file === "svc/cleanup.py").length);
    expect(uris.length).toBe(listed);
    expect((await findings(result.scan_id, "&cwe=CWE-78")).filter((f) => f.file === "svc/cleanup.py")).toEqual([]);
    const asFilter = await request(h.app).get(`/api/v2/scan/${result.scan_id}/findings?dataflow=refuted`).set(key());
    expect(asFilter.status).toBe(400);
    expect(asFilter.body.message).toContain("GET /api/v2/scan/{scan_id}/refuted");
  });

  it("merges the same weakness reported twice on one line", () => {
    const shell = all.find((f) => f.file === "svc/tasks.py" && f.cwe_id === "CWE-78");
    expect(shell).toBeDefined();
    expect(shell!.sources.map((s) => s.analyzer).sort()).toEqual(["ast-grep", "bandit"]);
  });

  it("never stores a secret in clear", async () => {
    const raw = await h.stack.handle.db.selectFrom("findings").selectAll().where("scan_id", "=", result.scan_id).execute();
    expect(JSON.stringify(raw)).not.toContain("q8Zr3Lk9Vd2Fh6Jt1Wm5Pn0Xs4Gb7Yc2Re8Ta3Ku");
  });
});

describe("fixes", () => {
  it("offers a unified diff that removes the finding when applied", async () => {
    const repo = makeGitRepo({
      "lib/hash.js": "const crypto = require('crypto');\nexports.h = (x) => crypto.createHash('md5').update(x).digest('hex');\n",
    });
    const first = await scan({ git_uri: repo });
    const weak = (await findings(first.scan_id)).find((f) => f.rule_id === "js-weak-hash")!;
    expect(weak.has_fix).toBe(true);
    const fix = await request(h.app).get(`/api/v2/scan/${first.scan_id}/finding/${weak.finding_id}/fix`).set(key());
    expect(fix.status).toBe(200);
    expect(fix.body.diff).toContain('+exports.h = (x) => crypto.createHash("sha256")');
    const bare = await request(h.app)
      .get(`/api/v2/scan/${first.scan_id}/finding/${weak.finding_id}/fix`)
      .set(key())
      .set("Accept", "text/x-diff");
    expect(bare.headers["content-type"]).toMatch(/text\/x-diff/);
    expect(bare.text).toBe(fix.body.diff);

    const sarif = JSON.parse((await request(h.app).get(`/api/v2/scan/${first.scan_id}/sarif`).set(key())).text);
    const result = sarif.runs
      .flatMap((r: { results: { ruleId: string }[] }) => r.results)
      .find((r: { ruleId: string }) => r.ruleId === "js-weak-hash");
    expect(result.fixes[0].artifactChanges[0].replacements[0].insertedContent.text).toBe('crypto.createHash("sha256")');

    fs.writeFileSync(path.join(repo, "fix.patch"), fix.body.diff);
    git(repo, "apply", "fix.patch");
    fs.rmSync(path.join(repo, "fix.patch"));
    commitFiles(repo, {}, "apply the fix");
    const second = await scan({ git_uri: repo });
    // Not among the commit's findings; recorded as fixed since the previous scan.
    expect((await findings(second.scan_id)).filter((f) => f.rule_id === "js-weak-hash")).toEqual([]);
    const gone = await findings(second.scan_id, "&baseline=absent");
    expect(gone.filter((f) => f.rule_id === "js-weak-hash").map((f) => f.status)).toEqual(["FIXED"]);
  });

  it("answers 404 for a finding without a fix", async () => {
    const repo = makeGitRepo({ "a.py": "import pickle\n\n\ndef f(b):\n    return pickle.loads(b)\n" });
    const s = await scan({ git_uri: repo });
    const f = (await findings(s.scan_id)).find((x) => x.cwe_id === "CWE-502")!;
    const r = await request(h.app).get(`/api/v2/scan/${s.scan_id}/finding/${f.finding_id}/fix`).set(key());
    expect(r.status).toBe(404);
    expect(r.body.message).toBe("This finding has no automatic fix.");
  });
});

describe("diff-aware scans", () => {
  it("marks the findings introduced since the baseline commit and can report only those", async () => {
    const repo = makeGitRepo({
      "old.py": "import pickle\n\n\ndef f(b):\n    return pickle.loads(b)\n",
      "gone.py": "import os\n\n\ndef r(c):\n    os.system(c)\n",
    });
    const base = git(repo, "rev-parse", "HEAD");
    fs.rmSync(path.join(repo, "gone.py"));
    commitFiles(repo, { "new.py": "import yaml\n\n\ndef g(s):\n    return yaml.load(s)\n" }, "pr change");
    const s = await scan({ git_uri: repo, baseline_commit: base });
    expect(s).toMatchObject({ state: "completed", baseline_commit: base });
    // The comparison ran from the merge-base (here the baseline itself) and lists what the change fixed.
    expect(s.diff).toMatchObject({ baseline_commit: base, merge_base: base });
    expect(s.diff!.fixed.length).toBeGreaterThan(0);
    expect(new Set(s.diff!.fixed.map((f) => f.file))).toEqual(new Set(["gone.py"]));
    expect(s.diff!.fixed_total).toBe(s.diff!.fixed.length);
    const all = await findings(s.scan_id);
    expect(all.find((f) => f.file === "old.py")!.introduced).toBe(false);
    expect(all.find((f) => f.file === "new.py")!.introduced).toBe(true);
    const onlyNew = await findings(s.scan_id, "&introduced=true");
    expect([...new Set(onlyNew.map((f) => f.file))]).toEqual(["new.py"]);
    expect(s.counts.introduced).toBe(onlyNew.length);
    const sarif = JSON.parse((await request(h.app).get(`/api/v2/scan/${s.scan_id}/sarif?introduced=true`).set(key())).text);
    expect(sarif.runs.flatMap((r: { results: unknown[] }) => r.results)).toHaveLength(onlyNew.length);
  });

  it("refuses a malformed baseline and fails a scan whose baseline cannot be fetched", async () => {
    const repo = makeGitRepo({ "a.py": "x = 1\n" });
    const bad = await request(h.app).post("/api/v2/scan").set(key()).send({ git_uri: repo, baseline_commit: "HEAD~1" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/baseline_commit must be a full commit id/);
    const s = await scan({ git_uri: repo, baseline_commit: "1".repeat(40) });
    expect(s).toMatchObject({ state: "failed", error: "The baseline commit could not be fetched from the repository." });
  });
});

describe("repository configuration and suppressions", () => {
  it("excludes configured paths and rules, and reports inline suppressions instead of dropping them", async () => {
    const repo = makeGitRepo({
      ".ax.yml": "exclude:\n  - 'tests/**'\nexclude_rules:\n  - CWE-328\n",
      "tests/t.py": "import pickle\npickle.loads(b)\n",
      "app.py":
        "import pickle, hashlib\n\n\ndef f(b):\n    return pickle.loads(b)  # ax-ignore: only ever given our own signed cache blobs\n\n\n" +
        "def g(x):\n    return hashlib.md5(x)\n",
    });
    const s = await scan({ git_uri: repo });
    expect(s.selection).toMatchObject({ config_file: ".ax.yml", config_notice: null, skipped: expect.objectContaining({ excluded: 1 }) });
    const all = await findings(s.scan_id);
    expect(all.some((f) => f.file.startsWith("tests/"))).toBe(false);
    expect(all.some((f) => f.cwe_id === "CWE-328")).toBe(false);
    const suppressed = all.filter((f) => f.suppression);
    expect(suppressed.map((f) => [f.file, f.suppression!.reason])).toEqual([["app.py", "only ever given our own signed cache blobs"]]);
    expect(s.counts.suppressed).toBe(suppressed.length);
    expect((await findings(s.scan_id, "&suppressed=false")).some((f) => f.suppression)).toBe(false);
  });
});

describe("incremental rescans", () => {
  it("analyzes only changed files on the next scan, with the same results", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++) files[`m${i}.py`] = `import yaml\n\n\ndef f${i}(s):\n    return yaml.load(s)\n`;
    const repo = makeGitRepo(files);
    const first = await scan({ git_uri: repo });
    commitFiles(repo, { "m3.py": "import yaml\n\n\ndef f3(s):\n    return yaml.safe_load(s)\n" }, "fix one");
    const second = await scan({ git_uri: repo });
    const astGrep = second.analyzers.find((a) => a.name === "ast-grep");
    expect(astGrep).toMatchObject({ status: "completed", files: 20, cached_files: 19 });
    const open = (await findings(second.scan_id)).filter((f) => f.status !== "FIXED" && f.rule_id.startsWith("py-yaml"));
    expect(open).toHaveLength(19);
    expect((await findings(first.scan_id)).filter((f) => f.rule_id.startsWith("py-yaml"))).toHaveLength(20);
  });
});
