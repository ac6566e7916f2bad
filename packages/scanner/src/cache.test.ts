/**
 * The per-file analysis cache against a scan without it, on real clones with the real bandit
 * and secrets analyzers: the same blob at another path must give what a fresh analysis of
 * that path gives, since analyzers read the path too (test directories, config file names).
 */
import { join } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import { banditAnalyzer } from "./analyzers/bandit";
import { secretsAnalyzer } from "./analyzers/secrets";
import type { Analyzer } from "./analyzers/types";
import { MemoryAnalysisCache } from "./cache";
import { checkoutRepository } from "./clone";
import { runAnalyzers } from "./run";
import { git, makeRepo, removeDir, tempDir } from "../test/git-fixtures";
import { withWorkspace } from "./workspace";

let root: string;
beforeAll(() => {
  root = tempDir();
});
afterAll(() => removeDir(root));

/** Clones the repository's head and analyses it, with the cache when one is given. */
function scan(url: string, analyzers: Analyzer[], cache?: MemoryAnalysisCache) {
  return withWorkspace(join(root, "ws"), async (dir) => {
    const dest = join(dir, "repo");
    const { blobs } = await checkoutRepository({
      gitUri: url,
      dest,
      allowInsecure: true,
      timeoutMs: 30_000,
      maxRepoBytes: 50 * 1024 * 1024,
    });
    const result = await runAnalyzers({
      dir: dest,
      timeoutMs: 30_000,
      maxOutputBytes: 8 * 1024 * 1024,
      analyzers,
      ...(cache ? { cache, blobs } : {}),
    });
    return { findings: result.findings.map(reported).sort(), cached: result.analyzers.map((a) => [a.name, a.cached_files]) };
  });
}
const reported = (f: NormalizedFinding) => [f.rule_id, f.file, f.start_line, f.start_column, f.snippet].join(" | ");

/** Renames `from` to `to` (content unchanged: one blob, two paths) and commits. */
function rename(repo: string, from: string, to: string) {
  git(repo, ["mv", from, to]);
  git(repo, ["commit", "-q", "-m", `rename ${from}`]);
}

describe("per-file analysis cache", () => {
  it("does not report a cached assert in a file moved under tests/ (bandit drops asserts in tests)", async () => {
    const repo = makeRepo(root, "moved", { "app.py": "def check(data):\n    assert data\n    return data\n" });
    const cache = new MemoryAnalysisCache();
    const before = await scan(repo.url, [banditAnalyzer()], cache);
    expect(before.findings).toEqual(["bandit.B101 | app.py | 2 | 1 |     assert data"]);

    rename(repo.path, "app.py", "test_app.py");
    expect((await scan(repo.url, [banditAnalyzer()], cache)).findings).toEqual((await scan(repo.url, [banditAnalyzer()])).findings);
    expect((await scan(repo.url, [banditAnalyzer()])).findings).toEqual([]);
  });

  it("reports a bare secret once its file is renamed to a config file, as a fresh scan does", async () => {
    const repo = makeRepo(root, "env", { "settings.txt": "API_KEY=Zq8rT2vLx9PmW4kN7sB3\n" });
    const cache = new MemoryAnalysisCache();
    expect((await scan(repo.url, [secretsAnalyzer()], cache)).findings).toEqual([]);

    rename(repo.path, "settings.txt", "settings.env");
    const cached = await scan(repo.url, [secretsAnalyzer()], cache);
    const fresh = await scan(repo.url, [secretsAnalyzer()]);
    expect(fresh.findings).toHaveLength(1);
    expect(cached.findings).toEqual(fresh.findings);
  });

  it("keeps one blob's results apart at two paths in one scan, and reuses each at its own path", async () => {
    const body = "def check(data):\n    assert data\n";
    const repo = makeRepo(root, "twins", { "lib/check.py": body, "tests/check.py": body });
    const cache = new MemoryAnalysisCache();
    const first = await scan(repo.url, [banditAnalyzer()], cache);
    expect(first.findings).toEqual(["bandit.B101 | lib/check.py | 2 | 1 |     assert data"]);
    const again = await scan(repo.url, [banditAnalyzer()], cache);
    expect(again).toEqual({ findings: first.findings, cached: [["bandit", 2]] });
  });
});
