// The taint analysis's framework and table sinks (issue 20) as scan findings: each mapped to
// its CWE and official name (a session write is CWE-501, Trust Boundary Violation), and a
// pattern finding at such a sink confirmed when input reaches it, refuted when only
// constants do.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import { analyzeCheckout } from "./analyzers/dataflow";
import { applyDataflowVerdicts } from "./dataflow-verdicts";
import { removeDir, tempDir } from "../test/git-fixtures";

const FILES: Record<string, string> = {
  "src/main/java/app/Hello.java": `package app;
@RestController
public class Hello {
  @GetMapping("/hello")
  public String hello(@RequestParam String name) {
    return "<b>" + name + "</b>";
  }
}
`,
  "app/views.py": `from flask import Flask, request, session
app = Flask(__name__)

@app.route("/login", methods=["POST"])
def login():
    session["user"] = request.form["user"]
    session["role"] = "guest"
    return {"ok": True}
`,
  "src/server.js": `const express = require("express");
const app = express();
app.get("/p", async (req, res) => {
  const mod = require("./plugins/" + req.query.name);
  await page.goto(req.query.url);
  res.json(mod);
});
`,
};

let dir: string;
beforeAll(() => {
  dir = tempDir("ax-dataflow-framework-");
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
});
afterAll(() => removeDir(dir));

it("maps each new sink to its CWE and official name", async () => {
  const { findings } = await analyzeCheckout(dir, Object.keys(FILES));
  const got = findings.map((f) => [f.file, f.start_line, f.cwe_id, f.cwe_name]).sort((a, b) => String(a).localeCompare(String(b)));
  expect(got).toEqual([
    ["app/views.py", 6, "CWE-501", "Trust Boundary Violation"],
    ["src/main/java/app/Hello.java", 6, "CWE-79", "Improper Neutralization of Input During Web Page Generation ('Cross-site Scripting')"],
    ["src/server.js", 4, "CWE-94", "Improper Control of Generation of Code ('Code Injection')"],
    ["src/server.js", 5, "CWE-918", "Server-Side Request Forgery (SSRF)"],
  ]);
});

it("confirms a pattern finding at a tainted session write and refutes one at a constant write", async () => {
  const { findings, sites } = await analyzeCheckout(dir, Object.keys(FILES));
  const taint = findings.find((f) => f.cwe_id === "CWE-501")!;
  const pattern = (line: number): NormalizedFinding => {
    const { dataflow: _ignored, ...rest } = taint;
    void _ignored;
    return { ...rest, analyzer: "ast-grep", rule_id: "py-session-write", start_line: line, end_line: line, confidence: "MEDIUM" };
  };
  const out = applyDataflowVerdicts([taint, pattern(6), pattern(7)], { sites });
  expect(out.findings.map((f) => [f.analyzer, f.start_line, f.dataflow?.status, f.confidence])).toEqual([
    ["ast-grep", 6, "confirmed", "HIGH"],
  ]);
  expect(out.refuted.map((f) => [f.start_line, f.dataflow?.status])).toEqual([[7, "refuted"]]);
});
