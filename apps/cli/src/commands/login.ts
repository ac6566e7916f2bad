import readline from "node:readline/promises";
import { Writable } from "node:stream";
import { getProfile } from "../api";
import { parseCommand, showHelp } from "../args";
import { ApiClient } from "../client";
import { normalizeBaseUrl, removeConfigFile, resolveSettings, writeConfigFile } from "../config-file";
import { UsageError } from "../errors";
import type { Io } from "../io";

export const LOGIN_HELP = `ax login — check a personal access token against the service and remember both

Usage:
  ax login [--url URL] [--token TOKEN]
  printf '%s' "$TOKEN" | ax login --url URL

Without --token the token is asked for on a terminal (not echoed) or read from standard
input. It is checked with GET /api/v2/profile, then stored with the URL in
$XDG_CONFIG_HOME/ax/config.json (default ~/.config/ax/config.json), readable by you only.
AX_URL and AX_TOKEN, when set, override the file. Prefer standard input to --token, which
shell history and process lists can see.

Options:
  --url URL       the service, e.g. https://ax.example.com (default: AX_URL or the stored one)
  --token TOKEN   the token (axk_…)`;

export const LOGOUT_HELP = `ax logout — forget the stored URL and token (removes the config file)

Usage:
  ax logout

The token itself stays valid; revoke it in the service (DELETE /api/v2/profile/tokens/{id}) if it leaked.`;

const OPTIONS = { url: { type: "string" }, token: { type: "string" } } as const;

export async function loginCommand(argv: string[], io: Io): Promise<number> {
  const { values: v } = parseCommand(argv, OPTIONS, LOGIN_HELP, 0);
  if (v.help) return showHelp(io, LOGIN_HELP);
  const settings = await resolveSettings(io.env);
  const rawUrl = v.url ?? (io.stdinIsTTY ? await ask(io, `Service URL${settings.url ? ` [${settings.url}]` : ""}: `, false) : "") ?? "";
  const url = rawUrl.trim() || settings.url;
  if (!url) throw new UsageError("Give the service's address with --url (or AX_URL).", LOGIN_HELP);
  const token = (v.token ?? (io.stdinIsTTY ? await ask(io, "Token (not shown): ", true) : await readAll(io))).trim();
  if (!token) throw new UsageError("Give the token with --token, on standard input, or run ax login on a terminal.", LOGIN_HELP);

  const baseUrl = normalizeBaseUrl(url);
  const profile = await getProfile(new ApiClient(baseUrl, token));
  await writeConfigFile(settings.file, { url: baseUrl, token });
  const orgs = profile.organizations.map((o) => `${o.name} (${o.role})`).join(", ") || "none";
  io.out(
    `Logged in to ${baseUrl} as ${profile.display_name} <${profile.email}> via ${profile.identity_provider}.\n` +
      `Organizations: ${orgs}\nSaved to ${settings.file}\n`,
  );
  const overriding = [io.env.AX_URL?.trim() && "AX_URL", io.env.AX_TOKEN?.trim() && "AX_TOKEN"].filter(Boolean);
  if (overriding.length)
    io.err(
      `ax: note: ${overriding.join(" and ")} ${overriding.length > 1 ? "are" : "is"} set and override${overriding.length > 1 ? "" : "s"} the saved settings.\n`,
    );
  return 0;
}

export async function logoutCommand(argv: string[], io: Io): Promise<number> {
  const { values: v } = parseCommand(argv, {}, LOGOUT_HELP, 0);
  if (v.help) return showHelp(io, LOGOUT_HELP);
  const { file } = await resolveSettings(io.env);
  io.out((await removeConfigFile(file)) ? `Logged out: removed ${file}\n` : `Not logged in (no ${file}).\n`);
  if (io.env.AX_TOKEN?.trim()) io.err("ax: note: AX_TOKEN is still set in the environment.\n");
  return 0;
}

/** A question on the terminal; `hidden` stops the echo of what is typed (a token). */
async function ask(io: Io, question: string, hidden: boolean): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) io.stdout.write(chunk);
      done();
    },
  });
  const rl = readline.createInterface({ input: io.stdin, output, terminal: true });
  try {
    const answer = rl.question(question);
    muted = hidden;
    return await answer;
  } finally {
    rl.close();
    if (hidden) io.out("\n");
  }
}

async function readAll(io: Io): Promise<string> {
  let text = "";
  for await (const chunk of io.stdin) text += String(chunk);
  return text;
}
