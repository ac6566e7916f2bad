// Which analyzers are missing, asked of the tools themselves (as a scan does), and `npm start`'s
// entry point as a real child process on a PATH without them: one notice with the command
// that installs them, and the service still starts. Real Redis, embedded PGlite.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { banditAnalyzer, cppcheckAnalyzer, flawfinderAnalyzer, shellcheckAnalyzer } from "@ax/scanner";
import { dropQueueKeys, findOnPath, testQueuePrefix, tmpDir, waitFor, TEST_REDIS_URL } from "@ax/testkit";
import { externalAnalyzers, missingAnalyzers, missingAnalyzersNotice } from "@ax/scanner";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

it("lists the analyzers whose tool does not answer, with the Debian packages to install", async () => {
  const absent = [
    { ...banditAnalyzer({ binary: "/nonexistent/bandit" }), debianPackage: "bandit" },
    { ...cppcheckAnalyzer({ binary: "/nonexistent/cppcheck" }), debianPackage: "cppcheck" },
  ];
  const missing = await missingAnalyzers(absent);
  expect(missing.map((a) => a.name)).toEqual(["bandit", "cppcheck"]);
  expect(missingAnalyzersNotice(missing)).toBe(
    "Analyzers not installed: bandit, cppcheck. Scans run without them; install them with: apt-get install bandit cppcheck",
  );
  expect(missingAnalyzersNotice([])).toBeNull();
});

it("finds this machine's analyzers where the scanner finds them", async () => {
  const all = externalAnalyzers();
  expect(all.map((a) => a.name)).toEqual(["bandit", "flawfinder", "cppcheck", "shellcheck"]);
  const missing = (await missingAnalyzers(all)).map((a) => a.name);
  for (const name of ["bandit", "flawfinder", "cppcheck", "shellcheck"]) expect(missing.includes(name)).toBe(findOnPath(name) === null);
  // And a binary given by path is asked, not looked up by name.
  expect(
    await missingAnalyzers([
      { ...flawfinderAnalyzer({ binary: "/nonexistent/flawfinder" }), debianPackage: "flawfinder" },
      { ...shellcheckAnalyzer(), debianPackage: "shellcheck" },
    ]),
  ).toHaveLength(findOnPath("shellcheck") ? 1 : 2);
});

it("npm start says once which analyzers are missing and how to install them, and starts", async () => {
  // A PATH with node and git only.
  const bin = tmpDir("ax-bare-path-");
  fs.symlinkSync(process.execPath, path.join(bin, "node"));
  const git = findOnPath("git");
  if (git) fs.symlinkSync(git, path.join(bin, "git"));
  const prefix = testQueuePrefix();
  const proc = spawn(process.execPath, ["--import", "tsx", "apps/standalone/src/main.ts"], {
    cwd: ROOT,
    env: {
      PATH: bin,
      HOME: tmpDir("ax-home-"),
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: tmpDir("ax-missing-analyzers-"),
      REDIS_URL: TEST_REDIS_URL,
      REDIS_AUTOSTART: "false",
      QUEUE_PREFIX: prefix,
      LOG_FORMAT: "json",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr.on("data", (d: Buffer) => (out += d.toString()));
  try {
    await waitFor(
      async () => {
        if (proc.exitCode !== null) throw new Error(`npm start exited early:\n${out}`);
        return out.includes('"message":"API listening"') && out.includes("Analyzers not installed");
      },
      { timeoutMs: 60_000, what: "the API to listen and the notice" },
    );
    const notices = out.split("\n").filter((l) => l.includes("Analyzers not installed"));
    expect(notices).toHaveLength(1);
    const notice = JSON.parse(notices[0]!) as { level: string; message: string; missing: string[] };
    expect(notice.level).toBe("warn");
    expect(notice.missing).toEqual(["bandit", "flawfinder", "cppcheck", "shellcheck"]);
    expect(notice.message).toContain("install them with: apt-get install bandit flawfinder cppcheck shellcheck");
  } finally {
    const exited = new Promise((resolve) => (proc.exitCode !== null ? resolve(null) : proc.once("exit", resolve)));
    proc.kill("SIGTERM");
    await exited;
    await dropQueueKeys(TEST_REDIS_URL, prefix);
  }
}, 90_000);
