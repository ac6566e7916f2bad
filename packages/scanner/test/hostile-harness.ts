/**
 * The ground of the hostile-repository tests (hostile-repos*.test.ts): a scratch root with
 * `markers/` (a script from a repository that runs touches a file there: checked after every
 * test) and `outside/` (files a link could point at, holding a canary), and the worker's
 * sequence — checkoutRepository through a kept repository into a withWorkspace directory, then
 * runAnalyzers with the real analyzers. Importing it registers the hooks.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import { MemoryAnalysisCache } from "../src/cache";
import { checkoutRepository } from "../src/clone";
import { runAnalyzers, type RunAnalyzersResult } from "../src/run";
import { withWorkspace } from "../src/workspace";
import { tempDir } from "./git-fixtures";
import { removeTree, walk } from "./hostile-fixtures";

export const MIB = 1024 * 1024;
export const CANARY = `AX_CANARY_${randomBytes(8).toString("hex")}`;
export const C_GETS = "#include <stdio.h>\nint main(void) {\n  char buf[16];\n  gets(buf);\n  return 0;\n}\n";
export const PY_EXEC = "import os\n\ndef run(cmd):\n    os.system(cmd)\n    return eval(cmd)\n";
export const SH_RM = "#!/bin/sh\nrm -rf $1/*\n";
/** Vulnerable content for a name: C and Python by extension, else a shell script (found by its shebang). */
export const byExtension = (name: string): string => (name.endsWith(".c") ? C_GETS : name.endsWith(".py") ? PY_EXEC : SH_RM);

export let root: string;
export let workspaces: string;
export let markers: string;
export let outside: string;
/** Hostile inputs tried, for the one-line summary (docs/reliability.md quotes the figure). */
const tried = { repo: new Set<string>(), uri: new Set<string>() };
export const hostile = (what: string) => (what.startsWith("git_uri") ? tried.uri : tried.repo).add(what);

beforeAll(() => {
  root = tempDir("ax-hostile-repos-");
  workspaces = join(root, "workspaces");
  markers = join(root, "markers");
  outside = join(root, "outside");
  mkdirSync(markers);
  mkdirSync(join(outside, "dir"), { recursive: true });
  writeFileSync(
    join(outside, "canary.py"),
    `import os\n\ndef handler(cmd):\n    os.system("${CANARY} " + cmd)\n    return eval("${CANARY}")\n`,
  );
  writeFileSync(join(outside, "dir", "vuln.c"), `/* ${CANARY} */\n${C_GETS}`);
});
afterEach(() => {
  // A marker means a script from a repository ran. Controls remove the ones they cause.
  expect(readdirSync(markers)).toEqual([]);
});
afterAll(() => {
  process.stdout.write(
    `hostile-repos: ${tried.repo.size} hostile repository inputs and ${tried.uri.size} hostile git_uri values (worker path) tried\n`,
  );
  removeTree(root);
});

export interface ScanOutcome {
  result: RunAnalyzersResult | null;
  error: Error | null;
  ms: number;
  /** The workspace directory still existed after withWorkspace returned (it is removed here then). */
  workspaceLeft: boolean;
}

let projects = 0;

/** The worker's sequence. `inCheckout` runs after the analyzers, before the workspace goes. */
export async function scanRepo(
  url: string,
  opts: {
    maxRepoBytes?: number;
    analyzerTimeoutMs?: number;
    onCheckout?: (checkout: string) => void;
    inCheckout?: (checkout: string) => Promise<void>;
  } = {},
): Promise<ScanOutcome> {
  const started = performance.now();
  let checkout = "";
  let result: RunAnalyzersResult | null = null;
  let error: Error | null = null;
  try {
    result = await withWorkspace(workspaces, async (dir) => {
      checkout = join(dir, "src");
      opts.onCheckout?.(checkout);
      // As the worker does: through a repository kept for the project (kept-repo.ts), here
      // a new one per scan, outside the workspaces.
      const stateDir = join(root, "state", `project-${++projects}`);
      const { blobs } = await checkoutRepository({
        gitUri: url,
        dest: checkout,
        allowInsecure: true,
        timeoutMs: 300_000,
        maxRepoBytes: opts.maxRepoBytes ?? 64 * MIB,
        stateDir,
      });
      const analysis = await runAnalyzers({
        dir: checkout,
        timeoutMs: opts.analyzerTimeoutMs ?? 120_000,
        maxOutputBytes: 16 * MIB,
        blobs,
        cache: new MemoryAnalysisCache(),
      });
      await opts.inCheckout?.(checkout);
      return analysis;
    });
  } catch (err) {
    // Errors from Node's own modules come from another realm under Jest: no instanceof Error.
    error = typeof err === "object" && err !== null && "message" in err ? (err as Error) : new Error(String(err));
  }
  const ms = performance.now() - started;
  const workspaceLeft = checkout !== "" && existsSync(dirname(checkout));
  if (workspaceLeft) removeTree(dirname(checkout));
  return { result, error, ms, workspaceLeft };
}

export function expectCompleted(o: ScanOutcome): RunAnalyzersResult {
  expect({ error: o.error?.message.slice(0, 300) ?? null, workspaceLeft: o.workspaceLeft }).toEqual({ error: null, workspaceLeft: false });
  const result = o.result as RunAnalyzersResult;
  for (const run of result.analyzers) {
    if (run.status !== "completed") expect(`${run.name}: ${run.status} ${run.notice ?? ""}`).toMatch(/skipped No files in a language/);
  }
  return result;
}

/** A refusal the submitter can act on: a short ScanInputError naming no worker path, workspace gone. */
export function expectRefused(o: ScanOutcome, message: RegExp = /./): void {
  const text = o.error?.message ?? "";
  const summary = `${o.error?.name ?? "no error"}: ${text.slice(0, 200)}${text.length > 200 ? `… (${text.length} characters)` : ""}`;
  expect({ error: summary, workspaceLeft: o.workspaceLeft }).toEqual({
    error: expect.stringMatching(/^ScanInputError: /),
    workspaceLeft: false,
  });
  expect(text).toMatch(message);
  expect(text.length).toBeLessThan(300);
  expect(text).not.toContain(root);
}

export const filesWithFindings = (findings: NormalizedFinding[]) => new Set(findings.map((f) => f.file));

/** Committed paths compared with what is on disk after the analyzers ran: nothing new appeared. */
export async function expectOnlyCommittedFiles(checkout: string, committed: string[]): Promise<void> {
  const onDisk = [...(await walk(checkout)).entries()]
    .filter(([p, kind]) => kind !== "dir" && p !== ".git" && !p.startsWith(".git/"))
    .map(([p]) => p);
  expect(onDisk.sort()).toEqual([...committed].sort());
}
