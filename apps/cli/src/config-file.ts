/**
 * The user's `ax` settings: the service URL and a personal access token, kept in
 * $XDG_CONFIG_HOME/ax/config.json (else ~/.config/ax/config.json), readable by the user only.
 * AX_URL and AX_TOKEN override the file, each on its own.
 */
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CliError, EXIT } from "./errors";

export interface StoredConfig {
  url: string;
  token: string;
}

export type Source = "env" | "file" | "none";

export interface Settings {
  url: string | undefined;
  token: string | undefined;
  source: { url: Source; token: Source };
  file: string;
}

type Env = Record<string, string | undefined>;

export function configPath(env: Env): string {
  const base = env.XDG_CONFIG_HOME?.trim() || path.join(env.HOME?.trim() || os.homedir(), ".config");
  return path.join(base, "ax", "config.json");
}

export async function readConfigFile(file: string): Promise<Partial<StoredConfig> | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError(`Cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    return {
      ...(typeof value.url === "string" ? { url: value.url } : {}),
      ...(typeof value.token === "string" ? { token: value.token } : {}),
    };
  } catch {
    throw new CliError(`${file} is not valid JSON. Run "ax login" to write it again (or delete it).`);
  }
}

/** Writes through a temporary file so that a crash never leaves half a token behind. */
export async function writeConfigFile(file: string, config: StoredConfig): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // `mode` applies only when the file is created; make sure of it either way.
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}

/** True when there was a file to remove. */
export async function removeConfigFile(file: string): Promise<boolean> {
  try {
    await rm(file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw e;
  }
}

export async function resolveSettings(env: Env): Promise<Settings> {
  const file = configPath(env);
  const stored = (await readConfigFile(file)) ?? {};
  const pick = (fromEnv: string | undefined, fromFile: string | undefined): [string | undefined, Source] =>
    fromEnv?.trim() ? [fromEnv.trim(), "env"] : fromFile ? [fromFile, "file"] : [undefined, "none"];
  const [url, urlSource] = pick(env.AX_URL, stored.url);
  const [token, tokenSource] = pick(env.AX_TOKEN, stored.token);
  return { url, token, source: { url: urlSource, token: tokenSource }, file };
}

/** `http(s)://host[:port][/prefix]` without a trailing slash or the `/api/v2` a user may paste. */
export function normalizeBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new CliError(`"${raw}" is not a URL; give the service's address, e.g. https://ax.example.com`, EXIT.usage);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new CliError(`The service URL must start with http:// or https:// (got "${raw}").`, EXIT.usage);
  const pathname = url.pathname.replace(/\/+$/, "").replace(/\/api\/v2$/, "");
  return `${url.origin}${pathname}`;
}
