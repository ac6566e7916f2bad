// The settings file on the real file system, in temporary directories.
import fs from "node:fs";
import path from "node:path";
import { tmpDir } from "@ax/testkit";
import { configPath, normalizeBaseUrl, readConfigFile, removeConfigFile, resolveSettings, writeConfigFile } from "./config-file";

describe("config file", () => {
  it("lives under XDG_CONFIG_HOME, else ~/.config", () => {
    expect(configPath({ HOME: "/home/ada" })).toBe("/home/ada/.config/ax/config.json");
    expect(configPath({ HOME: "/home/ada", XDG_CONFIG_HOME: "/xdg" })).toBe("/xdg/ax/config.json");
  });

  it("is written readable by the user only, in a directory only the user can enter", async () => {
    const home = tmpDir();
    const file = configPath({ HOME: home });
    await writeConfigFile(file, { url: "http://127.0.0.1:1", token: "axk_one" });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    // A file made readable by others meanwhile is narrowed again on the next write.
    fs.chmodSync(file, 0o644);
    await writeConfigFile(file, { url: "http://127.0.0.1:2", token: "axk_two" });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(await readConfigFile(file)).toEqual({ url: "http://127.0.0.1:2", token: "axk_two" });
    expect(fs.readdirSync(path.dirname(file))).toEqual(["config.json"]);
    expect(await removeConfigFile(file)).toBe(true);
    expect(await removeConfigFile(file)).toBe(false);
  });

  it("is overridden by AX_URL and AX_TOKEN, each on its own", async () => {
    const home = tmpDir();
    await writeConfigFile(configPath({ HOME: home }), { url: "http://127.0.0.1:1", token: "axk_file" });
    expect(await resolveSettings({ HOME: home })).toMatchObject({
      url: "http://127.0.0.1:1",
      token: "axk_file",
      source: { url: "file", token: "file" },
    });
    expect(await resolveSettings({ HOME: home, AX_TOKEN: "axk_env" })).toMatchObject({
      url: "http://127.0.0.1:1",
      token: "axk_env",
      source: { url: "file", token: "env" },
    });
    expect(await resolveSettings({ HOME: home, AX_URL: "http://127.0.0.1:3" })).toMatchObject({
      url: "http://127.0.0.1:3",
      token: "axk_file",
      source: { url: "env", token: "file" },
    });
    expect(await resolveSettings({ HOME: tmpDir() })).toMatchObject({
      url: undefined,
      token: undefined,
      source: { url: "none", token: "none" },
    });
  });

  it("says how to recover from a damaged file", async () => {
    const home = tmpDir();
    const file = configPath({ HOME: home });
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "{not json");
    await expect(readConfigFile(file)).rejects.toThrow(/not valid JSON. Run "ax login"/);
  });
});

describe("service URL", () => {
  it("drops a trailing slash and a pasted /api/v2, and refuses what is not http(s)", () => {
    expect(normalizeBaseUrl("http://127.0.0.1:8080/")).toBe("http://127.0.0.1:8080");
    expect(normalizeBaseUrl("https://ax.example.test/api/v2/")).toBe("https://ax.example.test");
    expect(normalizeBaseUrl("https://ax.example.test/scanner")).toBe("https://ax.example.test/scanner");
    expect(() => normalizeBaseUrl("ftp://x")).toThrow(/http:\/\/ or https:\/\//);
    expect(() => normalizeBaseUrl("not a url")).toThrow(/is not a URL/);
  });
});
