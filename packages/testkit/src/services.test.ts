// The run's PostgreSQL and Redis as the globalSetup provides them, for real: private servers
// started on spare ports (the machine's own on 5432/6379 are never touched), used, stopped and
// removed; and the programs looked up where installs put them.
import fs from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { freePort, portAnswers } from "./ports";
import { provideTestServices, serviceSettings, type TestServices } from "./services";
import { findChromium, findPgBin, MissingToolError, requireChromium } from "./tools";
import { tmpDir } from "./index";

async function pgAnswers(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("CREATE DATABASE ax_private_probe");
    const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    return rows[0]!.v;
  } finally {
    await client.end();
  }
}

async function redisAnswers(url: string): Promise<string> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.set("ax-private-probe", "1");
    return await redis.ping();
  } finally {
    redis.disconnect();
  }
}

describe("provideTestServices", () => {
  let services: TestServices | undefined;
  afterAll(async () => services?.stop());

  it("starts a private PostgreSQL and Redis when nothing answers on the ports, and removes them on stop", async () => {
    const [pgPort, redisPort] = [await freePort(), await freePort()];
    services = await provideTestServices({ pgPort, redisPort });
    const { postgres, redis } = services.started;
    expect(postgres && redis).toBeTruthy();
    expect(services.pgAdminUrl).toBe(`postgres://postgres@127.0.0.1:${postgres!.port}/postgres`);
    expect(services.redisUrl).toBe(`redis://127.0.0.1:${redis!.port}`);
    // Trust auth on loopback, the socket in the run's own folder, nothing persisted by Redis.
    expect(await pgAnswers(services.pgAdminUrl)).toMatch(/^\d+/);
    expect(fs.readdirSync(postgres!.dir).some((f) => f.startsWith(".s.PGSQL."))).toBe(true);
    expect(await redisAnswers(services.redisUrl)).toBe("PONG");

    // While they run, they are "the servers on the usual ports" of another run: used, not started again.
    const again = await provideTestServices({ pgPort: postgres!.port, redisPort: redis!.port });
    expect(again.started).toEqual({});
    expect([again.pgAdminUrl, again.redisUrl]).toEqual([services.pgAdminUrl, services.redisUrl]);
    await again.stop();
    expect(await portAnswers(postgres!.port)).toBe(true);

    await services.stop();
    services = undefined;
    expect(fs.existsSync(postgres!.dir)).toBe(false);
    expect(fs.existsSync(redis!.dir)).toBe(false);
    expect(await portAnswers(postgres!.port)).toBe(false);
    expect(await portAnswers(redis!.port)).toBe(false);
  }, 120_000);

  it("uses TEST_PG_ADMIN_URL and TEST_REDIS_URL as given, without looking at the ports", async () => {
    const settings = serviceSettings({
      TEST_PG_ADMIN_URL: "postgres://u@db.invalid:1/x",
      TEST_REDIS_URL: "redis://cache.invalid:2",
      TEST_PG_PORT: "1",
      TEST_REDIS_PORT: "2",
    });
    const given = await provideTestServices(settings);
    expect([given.pgAdminUrl, given.redisUrl, given.started]).toEqual(["postgres://u@db.invalid:1/x", "redis://cache.invalid:2", {}]);
  });

  it("reads the ports where the machine's servers are looked for, 5432 and 6379 unless told", () => {
    expect(serviceSettings({})).toEqual({ pgPort: 5432, redisPort: 6379 });
    expect(serviceSettings({ TEST_PG_PORT: "15432", TEST_REDIS_PORT: "16379" })).toEqual({ pgPort: 15432, redisPort: 16379 });
    expect(() => serviceSettings({ TEST_PG_PORT: "pg" })).toThrow(/TEST_PG_PORT must be a port number/);
  });
});

/** An executable file (a shell script) at dir/name. */
function program(dir: string, name: string): string {
  const file = path.join(dir, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  return file;
}

describe("findPgBin", () => {
  it("finds this machine's server programs", () => {
    const dir = findPgBin();
    expect(dir).not.toBeNull();
    for (const p of ["initdb", "pg_ctl", "postgres"]) expect(fs.existsSync(path.join(dir!, p))).toBe(true);
  });

  it("takes the newest version folder that holds initdb when neither pg_config nor PATH has one", () => {
    const root = tmpDir("ax-pgbin-");
    program(path.join(root, "9.6/bin"), "initdb");
    program(path.join(root, "15/bin"), "initdb");
    program(path.join(root, "16/bin"), "psql"); // a client-only install
    fs.mkdirSync(path.join(root, "common"));
    expect(findPgBin({ pgConfig: null, searchPath: "", versionsRoot: root, override: "" })).toBe(path.join(root, "15/bin"));
    expect(findPgBin({ pgConfig: null, searchPath: path.join(root, "9.6/bin"), versionsRoot: root, override: "" })).toBe(
      path.join(root, "9.6/bin"),
    );
    expect(findPgBin({ pgConfig: null, searchPath: "", versionsRoot: path.join(root, "none"), override: "" })).toBeNull();
  });

  it("asks pg_config for its bindir first", () => {
    const root = tmpDir("ax-pgbin-");
    program(path.join(root, "17/bin"), "initdb");
    const pgConfig = path.join(root, "pg_config");
    fs.writeFileSync(pgConfig, `#!/bin/sh\necho ${path.join(root, "17/bin")}\n`, { mode: 0o755 });
    program(path.join(root, "18/bin"), "initdb");
    expect(findPgBin({ pgConfig, searchPath: "", versionsRoot: root, override: "" })).toBe(path.join(root, "17/bin"));
  });
});

describe("findChromium", () => {
  it("takes CHROMIUM_PATH, else the first of chromium, chromium-browser, google-chrome on PATH", () => {
    const dir = tmpDir("ax-chromium-");
    const browser = program(path.join(dir, "bin"), "chromium-browser");
    const chrome = program(path.join(dir, "other"), "google-chrome");
    expect(findChromium({ PATH: [path.join(dir, "other"), path.join(dir, "bin")].join(path.delimiter) })).toBe(browser);
    expect(findChromium({ PATH: path.join(dir, "other") })).toBe(chrome);
    expect(findChromium({ PATH: "", CHROMIUM_PATH: chrome })).toBe(chrome);
  });

  it("names the package to install when there is none", () => {
    expect(() => requireChromium({ PATH: "" })).toThrow(MissingToolError);
    expect(() => requireChromium({ PATH: "" })).toThrow(/Debian package chromium \(apt-get install chromium\)/);
    expect(() => requireChromium({ PATH: "", CHROMIUM_PATH: "/nonexistent/chrome" })).toThrow(
      /CHROMIUM_PATH=\/nonexistent\/chrome is not an executable/,
    );
  });
});
