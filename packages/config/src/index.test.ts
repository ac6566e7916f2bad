import path from "node:path";
import { ConfigError, loadConfig } from "./index";

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    const c = loadConfig({});
    expect(c.http.port).toBe(8080);
    expect(c.database.url).toBeUndefined();
    expect(c.database.dataDir).toBe(path.resolve("./.data"));
    expect(c.redis).toEqual({ url: "redis://127.0.0.1:6379", autostart: true, queuePrefix: "{ax}" });
    expect(c.scan.allowInsecureGitUrls).toBe(false);
    expect(c.scan.maxRepoBytes).toBe(500 * 1024 * 1024);
    expect(c.log.format).toBe("pretty");
    expect(loadConfig({ NODE_ENV: "production" }).log.format).toBe("json");
    expect(c.publicScan).toEqual({
      enabled: true,
      allowInsecure: false,
      perIpPerHour: 10,
      readsPerIpPerMinute: 120,
      maxInFlight: 10,
      retentionHours: 24,
      sweepIntervalMs: 600_000,
    });
  });

  it("parses values and booleans", () => {
    const c = loadConfig({ PORT: "9000", ALLOW_INSECURE_GIT_URLS: "true", TRUST_PROXY: "2", DATABASE_URL: "postgres://u@h/db" });
    expect(c.http.port).toBe(9000);
    expect(c.scan.allowInsecureGitUrls).toBe(true);
    expect(c.http.trustProxy).toBe(2);
    expect(c.database.url).toBe("postgres://u@h/db");
  });

  it("names every bad variable and says what is expected", () => {
    let err: unknown;
    try {
      loadConfig({ PORT: "http", ALLOW_INSECURE_GIT_URLS: "maybe", DATABASE_URL: "mysql://x", TRUST_PROXY: "-1" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    expect(msg).toMatch(/PORT: must be a whole number/);
    expect(msg).toMatch(/ALLOW_INSECURE_GIT_URLS: must be true or false/);
    expect(msg).toMatch(/DATABASE_URL: must start with postgres/);
    expect(msg).toMatch(/TRUST_PROXY: must be true, false or a hop count/);
  });
});
