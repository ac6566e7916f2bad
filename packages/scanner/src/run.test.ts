/**
 * runAnalyzers with the real ast-grep over real clones. The extra analyzers defined here are
 * small implementations of our own Analyzer interface that run real processes (sleep) or
 * throw, to exercise the status policy; no external service is faked.
 */
import { execa } from "execa";
import { join } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import { astGrepAnalyzer } from "./analyzers/ast-grep";
import { loadRulePack } from "./analyzers/rule-pack";
import { AnalyzerFailedError, type Analyzer } from "./analyzers/types";
import { cloneRepository } from "./clone";
import { isAbortError } from "./errors";
import { MemoryAnalysisCache } from "./cache";
import { runAnalyzers } from "./run";
import { astGrepBinaryPath, writeFixtureRulePack } from "../test/ast-grep-fixture";
import { commitFiles, makeRepo, removeDir, tempDir } from "../test/git-fixtures";
import { withWorkspace } from "./workspace";

let root: string;
let astGrep: Analyzer;
beforeAll(() => {
  root = tempDir();
  astGrep = astGrepAnalyzer({ binary: astGrepBinaryPath(), configPath: writeFixtureRulePack(join(root, "pack")) });
});
afterAll(() => removeDir(root));

const APP = "function a(x) {\n  return eval(x);\n}\nfunction b(y) {\n  eval(y);\n  eval(y);\n}\n";

/** Clone `url` into a fresh workspace and scan it, as the worker does. */
function scanRepo(url: string, analyzers: Analyzer[] = [astGrep]) {
  return withWorkspace(join(root, "ws"), async (dir) => {
    const dest = join(dir, "repo");
    await cloneRepository({ gitUri: url, dest, allowInsecure: true, timeoutMs: 30_000, maxRepoBytes: 50 * 1024 * 1024 });
    return runAnalyzers({ dir: dest, timeoutMs: 30_000, maxOutputBytes: 8 * 1024 * 1024, analyzers, threads: 2 });
  });
}

const sleeper = (name: string, seconds: number, pids: number[] = []): Analyzer => ({
  name,
  languages: "*",
  cacheable: false,
  version: async () => "1.0",
  async run(ctx) {
    const child = execa("sleep", [String(seconds)], { cancelSignal: ctx.signal, reject: false, extendEnv: false, env: {} });
    if (child.pid) pids.push(child.pid);
    await child;
    return [];
  },
});

const fixed = (name: string, findings: NormalizedFinding[]): Analyzer => ({
  name,
  languages: "*",
  cacheable: false,
  version: async () => "1.0",
  run: async () => findings,
});

it("scans a clone, fingerprints uniquely, and keeps fingerprints when unrelated lines move", async () => {
  const repo = makeRepo(root, "app", { "src/app.js": APP, "tools/run.py": "exec(cmd)\n" });
  const first = await scanRepo(repo.url);
  expect(first.languages).toEqual(["javascript", "python"]);
  expect(first.analyzers).toEqual([
    { name: "ast-grep", version: "0.51.1", status: "completed", duration_ms: expect.any(Number), findings: 4, files: 2, cached_files: 0 },
  ]);
  expect(first.findings.map((f) => [f.file, f.start_line])).toEqual([
    ["src/app.js", 2],
    ["src/app.js", 5],
    ["src/app.js", 6],
    ["tools/run.py", 1],
  ]);
  const prints = first.findings.map((f) => f.fingerprint);
  expect(new Set(prints).size).toBe(4);

  // Ten blank lines and a new function above everything: same findings, same fingerprints.
  commitFiles(repo.path, { "src/app.js": `${"\n".repeat(10)}function added() {\n  return 1;\n}\n${APP}` });
  const moved = await scanRepo(repo.url);
  expect(moved.findings.map((f) => f.start_line)).toEqual([15, 18, 19, 1]);
  expect(moved.findings.map((f) => f.fingerprint)).toEqual(prints);

  // Changing the matched code changes that finding's fingerprint only.
  commitFiles(repo.path, { "src/app.js": APP.replace("return eval(x)", "return eval(x + 1)") });
  const changed = await scanRepo(repo.url);
  expect(changed.findings.map((f) => f.fingerprint === prints[changed.findings.indexOf(f)])).toEqual([false, true, true, true]);
});

it("records a missing tool as skipped, a broken one as failed, and still runs the rest", async () => {
  const repo = makeRepo(root, "mixed", { "a.js": "eval(1);\n" });
  const missing = astGrepAnalyzer({ binary: join(root, "not-installed"), configPath: join(root, "pack/sgconfig.yml") });
  const broken: Analyzer = {
    ...fixed("broken", []),
    run: async () => {
      throw new Error(`ENOENT ${root}/secret/path`);
    },
  };
  const explicit: Analyzer = {
    ...fixed("explicit", []),
    run: async () => {
      throw new AnalyzerFailedError("explicit failed: bad input file.");
    },
  };
  const notPython: Analyzer = { ...fixed("bandit-like", []), languages: ["python"] };
  const result = await scanRepo(repo.url, [missing, broken, explicit, notPython, astGrep]);
  expect(result.analyzers.map((a) => [a.name, a.status, a.notice])).toEqual([
    ["ast-grep", "skipped", "ast-grep is not installed on this worker."],
    ["broken", "failed", "broken failed unexpectedly."],
    ["explicit", "failed", "explicit failed: bad input file."],
    ["bandit-like", "skipped", "No files in a language bandit-like analyzes."],
    ["ast-grep", "completed", undefined],
  ]);
  expect(result.findings).toHaveLength(1);
});

it("marks an analyzer that runs past its limit as timeout, killing its process promptly", async () => {
  const dir = join(root, "timeout-dir");
  makeRepo(root, "timeout-dir", { "a.js": "eval(1);\n" });
  const started = Date.now();
  const result = await runAnalyzers({ dir, timeoutMs: 300, maxOutputBytes: 1024, analyzers: [sleeper("slow", 30), astGrep] });
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(result.analyzers[0]).toMatchObject({ name: "slow", status: "timeout", notice: "slow did not finish within 300 ms." });
  expect(result.analyzers[1]).toMatchObject({ name: "ast-grep", status: "completed", findings: 1 });
});

it("throws an AbortError promptly when the caller cancels, and kills the running tool", async () => {
  const dir = join(root, "abort-dir");
  makeRepo(root, "abort-dir", { "a.js": "eval(1);\n" });
  const controller = new AbortController();
  const pids: number[] = [];
  setTimeout(() => controller.abort(), 200);
  const started = Date.now();
  const err = await runAnalyzers({
    dir,
    timeoutMs: 60_000,
    maxOutputBytes: 1024,
    signal: controller.signal,
    analyzers: [sleeper("slow", 30, pids), astGrep],
  }).catch((e: unknown) => e);
  expect(isAbortError(err)).toBe(true);
  expect(Date.now() - started).toBeLessThan(5_000);
  await new Promise((r) => setTimeout(r, 200));
  expect(pids).toHaveLength(1);
  expect(() => process.kill(pids[0] as number, 0)).toThrow(); // the sleep is gone
});

it("observes an analyzer's own rejection when the scan was stopped just before it ran (no unhandled rejection)", async () => {
  const dir = join(root, "stopped-before-run");
  makeRepo(root, "stopped-before-run", { "a.js": "eval(1);\n" });
  const controller = new AbortController();
  // The caller stops the scan while the analyzer's cached results are being read: run() is
  // then called with a signal that has fired, and rejects a moment later as it notices.
  const cache = new (class extends MemoryAnalysisCache {
    override async get(analyzer: string, version: string, blobs: readonly string[]) {
      controller.abort();
      return super.get(analyzer, version, blobs);
    }
  })();
  const noticing: Analyzer = {
    name: "noticing",
    languages: "*",
    cacheable: true,
    version: async () => "1.0",
    run: async (ctx) => {
      await new Promise((r) => setTimeout(r, 20));
      throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error("stopped");
    },
  };
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    const err = await runAnalyzers({
      dir,
      timeoutMs: 10_000,
      maxOutputBytes: 1024,
      signal: controller.signal,
      analyzers: [noticing],
      cache,
      blobs: new Map([["a.js", "b".repeat(40)]]),
    }).catch((e: unknown) => e);
    expect(isAbortError(err)).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    expect(unhandled).toEqual([]);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});

it("deduplicates identical findings from two analyzers and reports progress", async () => {
  const dir = join(root, "dedupe-dir");
  makeRepo(root, "dedupe-dir", { "a.js": "eval(1);\n" });
  const f: NormalizedFinding = {
    analyzer: "x",
    rule_id: "r1",
    title: "t",
    message: "m",
    cwe_id: null,
    cwe_name: null,
    owasp: null,
    file: "a.js",
    start_line: 1,
    end_line: 1,
    start_column: 1,
    end_column: 8,
    snippet: "eval(1);",
    severity: "LOW",
    confidence: "LOW",
    likelihood: null,
    impact: null,
    remediation: null,
    fingerprint: "",
    raw: { text: "eval(1)" },
  };
  const progress: number[] = [];
  const result = await runAnalyzers({
    dir,
    timeoutMs: 10_000,
    maxOutputBytes: 1024,
    analyzers: [fixed("one", [f]), fixed("two", [{ ...f, analyzer: "y" }])],
    onProgress: (pct) => progress.push(pct),
  });
  expect(result.findings).toHaveLength(1);
  expect(result.findings[0]?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  expect(result.analyzers.map((a) => a.findings)).toEqual([1, 1]);
  expect(progress).toEqual([50, 100]);
});

it("runs two analyzers of the sequence at a time, a third after one ends, and keeps registry order", async () => {
  const dir = join(root, "lanes-dir");
  makeRepo(root, "lanes-dir", { "a.js": "eval(1);\n" });
  const spans = new Map<string, [number, number]>();
  const timed = (name: string, seconds: number): Analyzer => {
    const inner = sleeper(name, seconds);
    return {
      ...inner,
      async run(ctx) {
        const started = performance.now();
        const out = await inner.run(ctx);
        spans.set(name, [started, performance.now()]);
        return out;
      },
    };
  };
  const result = await runAnalyzers({
    dir,
    timeoutMs: 10_000,
    maxOutputBytes: 1024,
    analyzers: [timed("first", 1), timed("second", 1), timed("third", 0.2)],
  });
  expect(result.analyzers.map((a) => [a.name, a.status])).toEqual([
    ["first", "completed"],
    ["second", "completed"],
    ["third", "completed"],
  ]);
  const span = (name: string) => spans.get(name) ?? [NaN, NaN];
  const [a0, a1] = span("first");
  const [b0, b1] = span("second");
  const [c0] = span("third");
  // first and second overlap (each sleeps 1 s, both started before either ended) …
  expect(b0).toBeLessThan(a1);
  expect(a0).toBeLessThan(b1);
  // … and third waited for a lane.
  expect(c0).toBeGreaterThanOrEqual(Math.min(a1, b1) - 5);
});

it("gives the sequence's tools one thread less while a concurrent analyzer has files, and all of them otherwise", async () => {
  const dir = join(root, "threads-dir");
  makeRepo(root, "threads-dir", { "a.js": "eval(1);\n" });
  const seen = new Map<string, number | undefined>();
  const probe = (name: string, languages: Analyzer["languages"], concurrent = false): Analyzer => ({
    name,
    languages,
    cacheable: false,
    concurrent,
    version: async () => "1.0",
    run: async (ctx) => {
      seen.set(name, ctx.threads);
      return [];
    },
  });
  const scan = (analyzers: Analyzer[]) => runAnalyzers({ dir, timeoutMs: 10_000, maxOutputBytes: 1024, analyzers, threads: 4 });
  await scan([probe("thread", ["javascript"], true), probe("tool", "*")]);
  expect(seen.get("tool")).toBe(3);
  expect(seen.get("thread")).toBe(4);
  // A concurrent analyzer with no files of its languages leaves every thread to the tools.
  await scan([probe("thread", ["python"], true), probe("tool", "*")]);
  expect(seen.get("tool")).toBe(4);
  await scan([probe("tool", "*")]);
  expect(seen.get("tool")).toBe(4);
});

it("runs the default registry whether or not the @ax/rules pack is installed yet", async () => {
  const dir = join(root, "default-dir");
  makeRepo(root, "default-dir", { "a.js": "const x = 1;\n" });
  const result = await runAnalyzers({ dir, timeoutMs: 30_000, maxOutputBytes: 8 * 1024 * 1024 });
  const [run] = result.analyzers;
  if ((await loadRulePack()) === null) {
    expect(run).toMatchObject({
      name: "ast-grep",
      status: "skipped",
      notice: "The ast-grep rule pack (@ax/rules) is not installed on this worker.",
    });
  } else {
    expect(run).toMatchObject({ name: "ast-grep", status: "completed" });
  }
});

it("keeps a cacheable analyzer's findings when the results cache cannot be read or written", async () => {
  const repo = makeRepo(root, "cache-down", { "src/app.js": APP });
  const down = new Error("connection terminated: the database is restarting");
  // The cache's database is unreachable, as during a PostgreSQL restart.
  const cache = {
    get: () => Promise.reject(down),
    put: () => Promise.reject(down),
    getScanResult: () => Promise.reject(down),
    putScanResult: () => Promise.reject(down),
  };
  const result = await withWorkspace(join(root, "ws"), async (dir) => {
    const dest = join(dir, "repo");
    await cloneRepository({ gitUri: repo.url, dest, allowInsecure: true, timeoutMs: 30_000, maxRepoBytes: 50 * 1024 * 1024 });
    const blobs = new Map([["src/app.js", "0".repeat(40)]]);
    return runAnalyzers({ dir: dest, timeoutMs: 30_000, maxOutputBytes: 8 * 1024 * 1024, analyzers: [astGrep], cache, blobs });
  });
  expect(result.analyzers[0]).toMatchObject({ name: "ast-grep", status: "completed", cached_files: 0 });
  expect(result.findings.map((f) => f.start_line).sort()).toEqual([2, 5, 6]);
});

describe("reuse of a whole analysis of the same commit", () => {
  const counting = (name: string, version: string, calls: { n: number }): Analyzer => ({
    name,
    languages: "*",
    cacheable: false,
    version: async () => version,
    async run(ctx) {
      calls.n++;
      return ctx.files.map((file) => ({ ...finding(file), analyzer: name, rule_id: `${name}-rule` }));
    },
  });
  const finding = (file: string): NormalizedFinding => ({
    analyzer: "x",
    rule_id: "x",
    title: "T",
    message: "M",
    cwe_id: "CWE-95",
    cwe_name: null,
    owasp: null,
    file,
    start_line: 2,
    end_line: 2,
    start_column: 1,
    end_column: 5,
    snippet: "",
    severity: "HIGH",
    confidence: "HIGH",
    likelihood: "MEDIUM",
    impact: "HIGH",
    remediation: "",
    fingerprint: "",
    raw: {},
  });
  const run = (dir: string, analyzers: Analyzer[], cache: MemoryAnalysisCache | undefined, commit: string) =>
    runAnalyzers({
      dir,
      timeoutMs: 30_000,
      maxOutputBytes: 8 * 1024 * 1024,
      analyzers,
      ...(cache ? { cache, blobs: new Map(), commit } : {}),
    });

  it("returns the same findings without running anything, and never across caches or versions", async () => {
    const repo = makeRepo(root, "reuse", { "src/app.js": APP, "src/b.js": "eval(z);\n" });
    const calls = { n: 0 };
    await withWorkspace(join(root, "ws"), async (dir) => {
      const dest = join(dir, "repo");
      const { commit } = await cloneRepository({
        gitUri: repo.url,
        dest,
        allowInsecure: true,
        timeoutMs: 30_000,
        maxRepoBytes: 50 * 1024 * 1024,
      });
      const orgA = new MemoryAnalysisCache();
      const first = await run(dest, [astGrep, counting("tool", "1.0", calls)], orgA, commit);
      expect(calls.n).toBe(1);
      const again = await run(dest, [astGrep, counting("tool", "1.0", calls)], orgA, commit);
      expect(calls.n).toBe(1);
      expect(again.findings).toEqual(first.findings);
      expect(again.languages).toEqual(first.languages);
      expect(again.selection).toEqual(first.selection);
      expect(again.analyzers.map((a) => [a.name, a.status, a.version, a.duration_ms, a.cached_files])).toEqual(
        first.analyzers.map((a) => [a.name, a.status, a.version, 0, a.files]),
      );
      // Another organization's cache, another analyzer version, another commit: analysed afresh.
      await run(dest, [astGrep, counting("tool", "1.0", calls)], new MemoryAnalysisCache(), commit);
      expect(calls.n).toBe(2);
      await run(dest, [astGrep, counting("tool", "1.1", calls)], orgA, commit);
      expect(calls.n).toBe(3);
      await run(dest, [astGrep, counting("tool", "1.0", calls)], orgA, "f".repeat(40));
      expect(calls.n).toBe(4);
      // A different set of analyzers is a different result.
      await run(dest, [counting("tool", "1.0", calls)], orgA, commit);
      expect(calls.n).toBe(5);
    });
  });

  it("does not keep a result that an analyzer failed to produce", async () => {
    const repo = makeRepo(root, "reuse-failed", { "src/app.js": APP });
    const broken: Analyzer = {
      name: "broken",
      languages: "*",
      cacheable: false,
      version: async () => "1",
      run: () => Promise.reject(new AnalyzerFailedError("boom", "boom")),
    };
    await withWorkspace(join(root, "ws"), async (dir) => {
      const dest = join(dir, "repo");
      const { commit } = await cloneRepository({
        gitUri: repo.url,
        dest,
        allowInsecure: true,
        timeoutMs: 30_000,
        maxRepoBytes: 50 * 1024 * 1024,
      });
      const cache = new MemoryAnalysisCache();
      await run(dest, [astGrep, broken], cache, commit);
      expect(cache.scanResults.size).toBe(0);
    });
  });
});
