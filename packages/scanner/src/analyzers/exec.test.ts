// The runner's policy, on real processes (sh): chunking, the shared output cap, time limit,
// cancellation, missing binaries, failure notices and the environment.
import { join } from "node:path";
import { ScanAbortedError } from "../errors";
import { chunkFiles, concurrencyFor, runTool, runToolOnFiles, safeFileArg, type ToolCommand } from "./exec";
import { AnalyzerFailedError, AnalyzerTimeoutError, AnalyzerUnavailableError, type AnalyzerContext } from "./types";
import { analyzerContext } from "../../test/analyzer-fixture";
import { removeDir, tempDir } from "../../test/git-fixtures";

let root: string;
beforeAll(() => {
  root = tempDir();
});
afterAll(() => removeDir(root));

const ctx = (over: Partial<AnalyzerContext> = {}) => analyzerContext(root, root, ["a"], over);
const sh: ToolCommand = { tool: "fake", binary: "sh" };
const echoArgs = (chunk: string[]) => ["-c", 'for f in "$@"; do echo "$f"; done', "sh", ...chunk];
const lines = ({ output }: { output: string }) => output.split("\n").filter(Boolean);

describe("chunkFiles", () => {
  it("keeps every chunk under the byte and count limits, in order", () => {
    const files = Array.from({ length: 2500 }, (_, i) => `dir/file-${i}.py`);
    const chunks = chunkFiles(files, { maxBytes: 10_000, maxFiles: 1000 });
    expect(chunks.flat()).toEqual(files);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(1000);
      expect(c.reduce((n, f) => n + Buffer.byteLength(f) + 1, 0)).toBeLessThanOrEqual(10_000);
    }
    expect(chunkFiles([], {})).toEqual([]);
  });

  it("gives a name longer than the limit a chunk of its own", () => {
    const long = "x".repeat(500);
    expect(chunkFiles(["a", long, "b"], { maxBytes: 100 })).toEqual([["a"], [long], ["b"]]);
  });

  it("runs single-threaded tools on the configured threads, or the cores when 0 or unset, at most 8", () => {
    expect(concurrencyFor(ctx({ threads: 3 }))).toBe(3);
    expect(concurrencyFor(ctx({ threads: 100 }))).toBe(8);
    expect(concurrencyFor(ctx({ threads: 0 }))).toBeGreaterThanOrEqual(1);
    expect(concurrencyFor(ctx({ threads: undefined }))).toBeGreaterThanOrEqual(1);
  });

  it("protects names that look like options", () => {
    expect(["-rf", "a/-b", "--x"].map(safeFileArg)).toEqual(["./-rf", "a/-b", "./--x"]);
  });
});

describe("runToolOnFiles", () => {
  it("runs one process per chunk, concurrently, and returns the items in chunk order", async () => {
    const files = Array.from({ length: 2345 }, (_, i) => `f${i}`);
    const seen: number[] = [];
    const run = await runToolOnFiles(ctx(), sh, {
      files,
      args: echoArgs,
      parse: (out, complete, chunk) => {
        expect(complete).toBe(true);
        seen.push(chunk.length);
        return lines(out);
      },
      concurrency: 3,
    });
    expect(run).toEqual({ items: files, truncated: false });
    expect(seen.sort((a, b) => a - b)).toEqual([345, 1000, 1000]);
  });

  it("shares the output cap among all processes and reports what was parsed before it", async () => {
    const files = Array.from({ length: 40 }, (_, i) => `f${i}`);
    const run = await runToolOnFiles(ctx({ maxOutputBytes: 5000 }), sh, {
      files,
      args: (chunk) => ["-c", 'for f in "$@"; do head -c 1000 /dev/zero | tr "\\0" x; echo; done', "sh", ...chunk],
      parse: (out) => lines(out),
      concurrency: 4,
      chunk: { maxFiles: 3 },
    });
    // Processes still running when the total passed the cap are stopped; finished ones keep their items.
    expect(run.truncated).toBe(true);
    expect(run.items.length).toBeLessThan(files.length);
  });

  it("stops the other processes at the first failure and reports it", async () => {
    const started = Date.now();
    const err = await runToolOnFiles(ctx(), sh, {
      files: ["ok", "fail", "slow1", "slow2"],
      args: (chunk) => ["-c", 'case "$1" in fail) echo "broken at /srv/secret/x.py" >&2; exit 2;; slow*) sleep 10;; esac', "sh", ...chunk],
      parse: lines,
      concurrency: 4,
      chunk: { maxFiles: 1 },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnalyzerFailedError);
    // No absolute path of the worker in the notice; the detail keeps stderr for operators.
    expect((err as AnalyzerFailedError).notice).toBe("fake failed (exit code 2): broken at <path>");
    expect((err as AnalyzerFailedError).detail).toContain("/srv/secret/x.py");
    expect(Date.now() - started).toBeLessThan(8000);
  });
});

describe("runTool", () => {
  it("maps the time limit to AnalyzerTimeoutError", async () => {
    const started = Date.now();
    await expect(runTool(ctx({ timeoutMs: 300 }), sh, ["-c", "sleep 10"])).rejects.toThrow(
      new AnalyzerTimeoutError("fake did not finish within 300 ms."),
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("maps the caller's cancellation to ScanAbortedError, and the analyzer limit's reason through", async () => {
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(new ScanAbortedError()), 100);
    await expect(runTool(ctx({ signal: cancel.signal }), sh, ["-c", "sleep 10"])).rejects.toBeInstanceOf(ScanAbortedError);
    const limit = new AbortController();
    setTimeout(() => limit.abort(new AnalyzerTimeoutError("bandit did not finish within 1 s.")), 100);
    await expect(runTool(ctx({ signal: limit.signal }), sh, ["-c", "sleep 10"])).rejects.toThrow("bandit did not finish within 1 s.");
  });

  it("maps a missing binary to AnalyzerUnavailableError", async () => {
    await expect(runTool(ctx(), { tool: "bandit", binary: join(root, "nope") }, [])).rejects.toThrow(
      new AnalyzerUnavailableError("bandit is not installed on this worker."),
    );
    await expect(runTool(ctx(), { tool: "bandit", binary: "ax-no-such-tool-on-path" }, [])).rejects.toBeInstanceOf(
      AnalyzerUnavailableError,
    );
  });

  it("caps the result stream (stderr for cppcheck) and fails a tool that floods the other one", async () => {
    const capped = await runTool(ctx({ maxOutputBytes: 1000 }), { ...sh, resultStream: "stderr" }, ["-c", "head -c 5000 /dev/zero >&2"]);
    expect(capped.truncated).toBe(true);
    expect(capped.output.length).toBeLessThanOrEqual(5000);
    const err = await runTool(ctx(), sh, ["-c", "head -c 3000000 /dev/zero >&2"]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnalyzerFailedError);
    expect((err as Error).message).toBe("fake failed: it wrote more than 1 MiB of diagnostics.");
  });

  it("runs the tool with a minimal environment and HOME in the scratch directory", async () => {
    process.env.DATABASE_URL = "postgres://user:secret@db/ax";
    process.env.REDIS_URL = "redis://secret@cache";
    try {
      const c = ctx();
      const { output } = await runTool(c, sh, ["-c", "env"]);
      expect(output).not.toMatch(/DATABASE_URL|REDIS_URL|secret/);
      expect(output).toContain(`HOME=${c.scratchDir}`);
      expect(output).toMatch(/^LC_ALL=C.UTF-8$/m);
    } finally {
      delete process.env.DATABASE_URL;
      delete process.env.REDIS_URL;
    }
  });

  it("accepts the exit codes a tool declares as success", async () => {
    await expect(runTool(ctx(), { ...sh, succeeded: (c) => c === 0 || c === 1 }, ["-c", "echo hi; exit 1"])).resolves.toMatchObject({
      output: "hi\n",
      exitCode: 1,
      truncated: false,
    });
    await expect(runTool(ctx(), sh, ["-c", "exit 1"])).rejects.toThrow("fake failed (exit code 1).");
  });
});
