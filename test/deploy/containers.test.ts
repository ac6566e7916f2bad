// The container files cannot be built here (no Docker engine), so this checks what can be
// checked without one: both images run as a non-root user, start files that exist, have a
// health check, the worker image carries git and the analyzers, and the compose file wires
// every service with a health check and the right dependencies.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import yaml from "js-yaml";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

/** The instructions of a Dockerfile's last stage, continuation lines joined. */
function finalStage(file: string): string[] {
  const lines = read(file)
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const last =
    lines
      .map((l, i) => (l.startsWith("FROM ") ? i : -1))
      .filter((i) => i >= 0)
      .pop() ?? 0;
  return lines.slice(last);
}

const instruction = (stage: string[], name: string) => stage.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1));

describe.each([
  ["apps/api/Dockerfile", "apps/api/src/main.ts"],
  ["apps/worker/Dockerfile", "apps/worker/src/main.ts"],
])("%s", (file, entry) => {
  const stage = finalStage(file);

  it("runs as a non-root user", () => {
    const users = instruction(stage, "USER");
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
  });

  it("starts a file that exists, under tini", () => {
    const cmd = JSON.parse(instruction(stage, "CMD").at(-1) ?? "[]") as string[];
    expect(cmd.at(-1)).toBe(entry);
    expect(existsSync(path.join(ROOT, entry))).toBe(true);
    expect(instruction(stage, "ENTRYPOINT").at(-1)).toContain("tini");
  });

  it("has a health check and installs without install scripts", () => {
    expect(instruction(stage, "HEALTHCHECK")).toHaveLength(1);
    expect(read(file)).toMatch(/npm ci --omit=dev --ignore-scripts/);
  });

  it("uses the Node.js major the project supports", () => {
    const engines = (JSON.parse(read("package.json")) as { engines: { node: string } }).engines.node;
    const major = /(\d+)/.exec(engines)?.[1];
    expect(instruction(stage, "FROM")[0]).toMatch(new RegExp(`^node:${major}-`));
  });
});

describe("apps/worker/Dockerfile", () => {
  it("carries git and every Debian analyzer the worker runs", () => {
    const run = instruction(finalStage("apps/worker/Dockerfile"), "RUN").join(" ");
    for (const pkg of ["git", "ca-certificates", "bandit", "flawfinder", "cppcheck", "shellcheck"])
      expect(run).toMatch(new RegExp(`\\b${pkg}\\b`));
  });

  it("checks health with a script that exists", () => {
    const hc = instruction(finalStage("apps/worker/Dockerfile"), "HEALTHCHECK")[0] ?? "";
    const script = /"(apps\/worker\/bin\/[^"]+)"/.exec(hc)?.[1];
    expect(script && existsSync(path.join(ROOT, script))).toBe(true);
  });
});

describe("docker-compose.yml", () => {
  interface Service {
    build?: { dockerfile: string };
    healthcheck?: { test: string[] };
    depends_on?: Record<string, { condition: string }>;
    deploy?: { replicas: unknown };
    environment?: Record<string, string>;
  }
  const compose = yaml.load(read("docker-compose.yml")) as { services: Record<string, Service> };

  it("starts PostgreSQL, Redis, the API and N workers, each with a health check", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["api", "postgres", "redis", "worker"]);
    for (const s of Object.values(compose.services)) expect(s.healthcheck?.test.length).toBeGreaterThan(0);
    expect(String(compose.services.worker?.deploy?.replicas)).toMatch(/AX_WORKERS/);
  });

  it("builds each app from its own Dockerfile, after PostgreSQL and Redis are healthy", () => {
    for (const [name, file] of [
      ["api", "apps/api/Dockerfile"],
      ["worker", "apps/worker/Dockerfile"],
    ] as const) {
      const s = compose.services[name];
      expect(s?.build?.dockerfile).toBe(file);
      expect(s?.depends_on).toEqual({ postgres: { condition: "service_healthy" }, redis: { condition: "service_healthy" } });
      expect(s?.environment?.DATABASE_URL).toMatch(/@postgres:5432\//);
      expect(s?.environment?.REDIS_URL).toBe("redis://redis:6379");
    }
  });

  it("probes the API's readiness route", () => {
    expect(compose.services.api?.healthcheck?.test.join(" ")).toContain("/api/v2/health/ready");
    expect(read("packages/api-server/src/routes/health.ts")).toMatch(/path: "\/health\/ready"/);
  });
});

it(".dockerignore keeps local modules, data and secrets out of the build context", () => {
  const ignored = read(".dockerignore").split("\n");
  for (const entry of ["**/node_modules", ".data", ".env", ".git"]) expect(ignored).toContain(entry);
});
