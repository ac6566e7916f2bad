import { SEVERITIES } from "@ax/contracts";
import { analyzeModules } from "./engine";
import type { Expr } from "./ir";
import { lowerJavaScript } from "./javascript";
import { JAVASCRIPT_SPEC } from "./javascript-spec";
import type { CallPattern } from "./spec";

type Call = { callee: string; path?: string; receiver?: string };

/** CallPattern semantics as spec.ts documents them: the name, and the path and receiver when given. */
function matches(p: CallPattern, call: Call): boolean {
  if (!p.names.includes(call.callee)) return false;
  if (p.path && !(call.path !== undefined && p.path.test(call.path))) return false;
  if (p.receiver && !(call.receiver !== undefined && p.receiver.test(call.receiver))) return false;
  return true;
}

/** Unconditional sinks only: one with `when` (`spawn(cmd, { shell: true })`) depends on the call's options. */
function sinkCwes(call: Call): string[] {
  return JAVASCRIPT_SPEC.sinks.filter((s) => !s.call.isNew && !s.when && matches(s.call, call)).map((s) => s.cwe);
}

function sanitizerCwes(call: Call): readonly string[] | "*" | undefined {
  return JAVASCRIPT_SPEC.sanitizers.find((s) => matches(s.call, call))?.cwes;
}

function fieldSource(path: string): string | undefined {
  return JAVASCRIPT_SPEC.sources.find((s) => s.field?.test(path))?.kind;
}

/** The last call of a one-file program as lowered, in the shape `matches` reads. */
function loweredCall(source: string): Call {
  const body = lowerJavaScript("app.js", source, "javascript").functions[0]?.body ?? [];
  const last = body[body.length - 1];
  const e: Expr | undefined = last?.k === "expr" ? last.expr : undefined;
  if (e?.k !== "call") throw new Error(`not a call: ${JSON.stringify(last)}`);
  const r = e.receiver;
  const receiver = r?.k === "var" ? r.name : r?.k === "field" ? r.path : undefined;
  return { callee: e.callee, ...(e.path !== undefined ? { path: e.path } : {}), ...(receiver !== undefined ? { receiver } : {}) };
}

describe("JAVASCRIPT_SPEC: table shape", () => {
  it("gives every sink a CWE, a title, a message, a severity and a remediation", () => {
    for (const rule of [...JAVASCRIPT_SPEC.sinks, ...(JAVASCRIPT_SPEC.fieldSinks ?? [])]) {
      expect(rule.cwe).toMatch(/^CWE-\d+$/);
      expect(rule.title.length).toBeGreaterThan(3);
      expect(rule.message.length).toBeGreaterThan(10);
      expect(rule.remediation.length).toBeGreaterThan(10);
      expect(SEVERITIES).toContain(rule.severity);
    }
  });

  it("uses unique ids within each kind of rule", () => {
    const sinkIds = [...JAVASCRIPT_SPEC.sinks, ...(JAVASCRIPT_SPEC.fieldSinks ?? [])].map((r) => r.id);
    expect(new Set(sinkIds).size).toBe(sinkIds.length);
    expect(sinkIds.every((id) => id.startsWith("js-taint-"))).toBe(true);
    for (const list of [JAVASCRIPT_SPEC.sources, JAVASCRIPT_SPEC.sanitizers]) expect(new Set(list.map((r) => r.id)).size).toBe(list.length);
  });

  it("covers the expected weaknesses, sanitizer CWEs are real ones, and confidence follows the source kind", () => {
    const cwes = new Set(JAVASCRIPT_SPEC.sinks.map((s) => s.cwe));
    for (const cwe of [
      "CWE-89",
      "CWE-78",
      "CWE-95",
      "CWE-22",
      "CWE-79",
      "CWE-601",
      "CWE-918",
      "CWE-943",
      "CWE-113",
      "CWE-502",
      "CWE-1333",
      "CWE-643",
      "CWE-90",
    ])
      expect(cwes).toContain(cwe);
    for (const s of JAVASCRIPT_SPEC.sanitizers) if (s.cwes !== "*") for (const cwe of s.cwes) expect(cwe).toMatch(/^CWE-\d+$/);
    expect(JAVASCRIPT_SPEC.confidence).toEqual({ remote: "HIGH", local: "MEDIUM" });
    expect(JAVASCRIPT_SPEC.language).toBe("javascript");
  });

  it("lists the storing methods as mutators, not the ones that return a new value", () => {
    expect(JAVASCRIPT_SPEC.mutators).toEqual(expect.arrayContaining(["push", "unshift", "splice", "set", "add", "append"]));
    expect(JAVASCRIPT_SPEC.mutators).not.toContain("concat");
  });
});

describe("JAVASCRIPT_SPEC: matching", () => {
  it("matches request, browser and environment sources by path, and not look-alikes", () => {
    for (const p of [
      "req.query",
      "req.query.id",
      "req.body.name",
      "request.params.id",
      "req.headers",
      "ctx.request.body",
      "ctx.query.q",
      "location.hash",
      "window.location.search",
      "document.cookie",
      "window.name",
    ])
      expect(fieldSource(p)).toBe("remote");
    expect(fieldSource("process.env.CMD")).toBe("local");
    expect(fieldSource("process.argv")).toBe("local");
    for (const p of ["requests.query", "req.queryCount", "res.body", "myreq.query", "ctx.state", "process.exitCode"])
      expect(fieldSource(p)).toBeUndefined();
  });

  it("matches request calls as sources", () => {
    const source = (call: Call) => JAVASCRIPT_SPEC.sources.find((s) => s.call && matches(s.call, call))?.kind;
    expect(source({ callee: "get", receiver: "req" })).toBe("remote");
    expect(source({ callee: "json", receiver: "request" })).toBe("remote");
    expect(source({ callee: "get", receiver: "request.nextUrl.searchParams" })).toBe("remote");
    expect(source({ callee: "json", receiver: "res" })).toBeUndefined();
    expect(source({ callee: "get", receiver: "cache" })).toBeUndefined();
  });

  it("matches command sinks by resolved path only", () => {
    expect(sinkCwes({ callee: "exec", path: "child_process.exec" })).toEqual(["CWE-78"]);
    expect(sinkCwes({ callee: "execSync", path: "child_process.execSync" })).toEqual(["CWE-78"]);
    expect(sinkCwes({ callee: "exec", path: "re.exec", receiver: "re" })).toEqual([]);
    expect(sinkCwes({ callee: "spawn", path: "child_process.spawn" })).toEqual([]);
  });

  it("matches SQL sinks on database-like receivers, NoSQL on collections and models, not on arrays", () => {
    for (const receiver of ["db", "this.db", "pool", "connection", "knex", "sequelize", "pgClient"])
      expect(sinkCwes({ callee: "query", receiver })).toContain("CWE-89");
    expect(sinkCwes({ callee: "$queryRawUnsafe", receiver: "prisma" })).toEqual(["CWE-89"]);
    expect(sinkCwes({ callee: "query", receiver: "req" })).toEqual([]);
    expect(sinkCwes({ callee: "findOne", receiver: "User" })).toEqual(["CWE-943"]);
    expect(sinkCwes({ callee: "find", receiver: 'db.collection("users")' })).toEqual(["CWE-943"]);
    expect(sinkCwes({ callee: "find", receiver: "items" })).toEqual([]);
  });

  it("matches file, response, DOM, redirect and outbound request sinks", () => {
    expect(sinkCwes({ callee: "readFile", path: "fs.readFile", receiver: "fs" })).toEqual(["CWE-22"]);
    expect(sinkCwes({ callee: "readFile", path: "fs/promises.readFile" })).toEqual(["CWE-22"]);
    expect(sinkCwes({ callee: "readFile", path: "myfs.readFile" })).toEqual([]);
    expect(sinkCwes({ callee: "sendFile", receiver: "res" })).toEqual(["CWE-22"]);
    expect(sinkCwes({ callee: "send", receiver: "res" })).toEqual(["CWE-79"]);
    expect(sinkCwes({ callee: "json", receiver: "res" })).toEqual([]);
    expect(sinkCwes({ callee: "write", path: "document.write", receiver: "document" })).toEqual(["CWE-79"]);
    expect(sinkCwes({ callee: "redirect", receiver: "res" })).toEqual(["CWE-601"]);
    expect(sinkCwes({ callee: "fetch", path: "fetch" })).toEqual(["CWE-918"]);
    expect(sinkCwes({ callee: "get", path: "axios.get", receiver: "axios" })).toEqual(["CWE-918"]);
    expect(sinkCwes({ callee: "get", path: "http.get", receiver: "http" })).toEqual(["CWE-918"]);
    expect(sinkCwes({ callee: "get", path: "cache.get", receiver: "cache" })).toEqual([]);
    expect(sinkCwes({ callee: "setHeader", receiver: "res" })).toEqual(["CWE-113"]);
    expect(sinkCwes({ callee: "eval", path: "eval" })).toEqual(["CWE-95"]);
  });

  it("matches constructor sinks and field sinks", () => {
    const ctor = (cls: string) => JAVASCRIPT_SPEC.sinks.filter((s) => s.call.isNew && s.call.names.includes(cls)).map((s) => s.cwe);
    expect(ctor("Function")).toEqual(["CWE-95"]);
    expect(ctor("RegExp")).toEqual(["CWE-1333"]);
    expect(ctor("Date")).toEqual([]);
    const field = (name: string) => JAVASCRIPT_SPEC.fieldSinks?.find((f) => !f.object && f.field.test(name))?.cwe;
    expect(field("innerHTML")).toBe("CWE-79");
    expect(field("outerHTML")).toBe("CWE-79");
    expect(field("textContent")).toBeUndefined();
  });

  it("sanitizes for the right weaknesses", () => {
    expect(sanitizerCwes({ callee: "parseInt", path: "parseInt" })).toBe("*");
    expect(sanitizerCwes({ callee: "Number", path: "Number" })).toBe("*");
    expect(sanitizerCwes({ callee: "basename", path: "path.basename", receiver: "path" })).toEqual(["CWE-22"]);
    expect(sanitizerCwes({ callee: "encodeURIComponent", path: "encodeURIComponent" })).toContain("CWE-79");
    expect(sanitizerCwes({ callee: "encodeURIComponent", path: "encodeURIComponent" })).not.toContain("CWE-89");
    expect(sanitizerCwes({ callee: "escape", path: "mysql.escape", receiver: "mysql" })).toEqual(["CWE-89"]);
    expect(sanitizerCwes({ callee: "escape", path: "escape" })).toEqual(["CWE-79"]);
    expect(sanitizerCwes({ callee: "sanitize", receiver: "DOMPurify" })).toEqual(["CWE-79"]);
    expect(sanitizerCwes({ callee: "quote", path: "shell-quote.quote" })).toEqual(["CWE-78"]);
    expect(sanitizerCwes({ callee: "join", path: "path.join", receiver: "path" })).toBeUndefined();
  });

  it("matches calls as the lowering resolves them through imports", () => {
    expect(sinkCwes(loweredCall('import { exec as run } from "node:child_process"; run(cmd);'))).toEqual(["CWE-78"]);
    expect(sinkCwes(loweredCall('const { execSync } = require("child_process"); execSync(cmd);'))).toEqual(["CWE-78"]);
    expect(sinkCwes(loweredCall('const fsp = require("fs").promises; fsp.readFile(p);'))).toEqual(["CWE-22"]);
    expect(sinkCwes(loweredCall('import axios from "axios"; axios(url);'))).toEqual(["CWE-918"]);
    expect(sanitizerCwes(loweredCall('import { basename } from "node:path"; basename(p);'))).toEqual(["CWE-22"]);
    expect(sanitizerCwes(loweredCall('const escapeHtml = require("escape-html"); escapeHtml(s);'))).toEqual(["CWE-79"]);
    expect(sinkCwes(loweredCall("const exec = (c) => c; exec(cmd);"))).toEqual([]);
  });
});

describe("JAVASCRIPT_SPEC with the engine", () => {
  function findings(files: Record<string, string>): string[] {
    const modules = Object.entries(files).map(([file, src]) =>
      lowerJavaScript(file, src, file.endsWith(".ts") ? "typescript" : "javascript"),
    );
    const lines = (f: string) => (files[f] ?? "").split("\n");
    const out = analyzeModules(modules, { specs: new Map([["javascript", JAVASCRIPT_SPEC]]), lines });
    return out.map((f) => `${f.file}:${f.start_line} ${f.cwe_id}`).sort();
  }

  it("finds request data reaching sinks in Express handlers, and not through sanitizers", () => {
    const src = [
      'const { exec } = require("child_process");',
      'app.get("/a", (req, res) => { exec("ls " + req.query.dir); });',
      'app.get("/b", (req, res) => { res.send(escapeHtml(req.query.q)); });',
      'app.get("/c", async (req, res) => { const { id } = req.params; await db.query(`SELECT * FROM t WHERE id = ${id}`); });',
      'app.get("/d", (req, res) => { db.query("SELECT " + parseInt(req.query.n, 10)); });',
      'app.get("/e", (req, res) => { if (false) exec(req.query.x); });',
    ].join("\n");
    expect(findings({ "app.js": src })).toEqual(["app.js:2 CWE-78", "app.js:4 CWE-89"]);
  });

  it("follows a request across files into a helper, and the DOM into innerHTML", () => {
    expect(
      findings({
        "route.ts":
          'import { run } from "./db";\nexport async function GET(request: Request) {\n  const q = new URL(request.url).searchParams.get("q");\n' +
          "  return run(q as string);\n}",
        "db.ts":
          'import { Pool } from "pg";\nconst pool = new Pool();\nexport function run(term: string) { return pool.query("SELECT * FROM t WHERE n = \'" + ' +
          'term + "\'"); }',
        "page.js": 'document.getElementById("x").innerHTML = location.hash;',
      }),
    ).toEqual(["db.ts:3 CWE-89", "page.js:1 CWE-79"]);
  });
});
