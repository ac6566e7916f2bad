/**
 * Test analyzers plugged in the way an operator plugs in semgrep or CodeQL: SARIF_TOOLS
 * entries running a small node script. Every process they start (the tool and a child it
 * spawns, both in the tool's process group) carries a marker in its command line, so a test
 * can find leftovers in /proc. Children ignore SIGTERM, so only the runner's SIGKILL of the
 * whole group stops them.
 *
 * Modes: `slow` sleeps (in a child whose command line carries the milliseconds) for the
 * time written in a control file, then reports one finding per file; `hang` never ends; `flood` writes stdout without end; `flood-stderr`
 * writes diagnostics without end.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { tmpDir } from "@ax/testkit";

const SCRIPT = `import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
const [marker, mode, control, ...files] = process.argv.slice(2);
const child = (ms) =>
  spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setTimeout(() => {}, Number(process.argv[1]))", String(ms), marker], { stdio: "ignore" });
const sarif = () => JSON.stringify({ version: "2.1.0", runs: [{ tool: { driver: { name: "probe", rules: [{ id: "REL1",
  shortDescription: { text: "Reliability probe" }, properties: { tags: ["external/cwe/cwe-489"] } }] } },
  results: files.map((f) => ({ ruleId: "REL1", level: "warning", message: { text: "probe finding" },
    locations: [{ physicalLocation: { artifactLocation: { uri: f }, region: { startLine: 1 } } }] })) }] });
const flood = (stream) => {
  const chunk = Buffer.alloc(64 * 1024, "A");
  const more = () => { while (stream.write(chunk)); stream.once("drain", more); };
  stream.on("error", () => process.exit(0));
  more();
};
if (mode === "slow") {
  const ms = Number(readFileSync(control, "utf8").trim()) || 0;
  child(ms).on("exit", () => process.stdout.write(sarif()));
} else if (mode === "hang") {
  process.on("SIGTERM", () => {});
  child(600_000);
  setInterval(() => {}, 1 << 30);
} else if (mode === "flood") {
  process.stdout.write('{"version":"2.1.0","runs":[{"results":[');
  flood(process.stdout);
} else if (mode === "flood-stderr") {
  flood(process.stderr);
}
`;

export type ToolMode = "slow" | "hang" | "flood" | "flood-stderr";

export interface ProbeTools {
  dir: string;
  /** Where `slow` reads how long to sleep (ms); change it between runs with setSlowMs. */
  control: string;
  setSlowMs(ms: number): void;
  /** A fresh marker: give each worker process its own, to tell its leftovers apart. */
  marker(): string;
  /** The SARIF_TOOLS value: one entry per mode, named `probe-<mode>`, for Python files. */
  config(marker: string, modes: ToolMode[], extra?: Record<string, unknown>): string;
}

export function probeTools(slowMs = 1500): ProbeTools {
  const dir = tmpDir("ax-reliability-tools-");
  const script = path.join(dir, "probe.mjs");
  writeFileSync(script, SCRIPT);
  const control = path.join(dir, "slow-ms");
  writeFileSync(control, String(slowMs));
  return {
    dir,
    control,
    setSlowMs: (ms) => writeFileSync(control, String(ms)),
    marker: () => `ax-reliability-${randomBytes(6).toString("hex")}`,
    config: (marker, modes, extra = {}) =>
      JSON.stringify(
        modes.map((mode) => ({
          name: `probe-${mode}`,
          command: [process.execPath, script, marker, mode, control, "{files}"],
          languages: ["python"],
          ...extra,
        })),
      ),
  };
}

/** A small Python repository with findings for ast-grep, bandit and the secrets detector. */
export function pythonFiles(count = 6): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    files[`app/mod${i}.py`] =
      `import hashlib\nimport pickle\nimport subprocess\nimport yaml\n\n\ndef load_${i}(blob, cmd):\n` +
      `    data = pickle.loads(blob)\n    subprocess.call(cmd, shell=True)\n    digest = hashlib.md5(blob).hexdigest()\n` +
      `    return yaml.load(data), digest, eval(cmd)\n`;
  }
  files["config/settings.py"] = 'GITHUB_TOKEN = "ghp_Zk3Qm8Vx2Lr7Tn4Wy9Pb6Hd1Js5Fc0Ga8Ke2"\n';
  return files;
}
