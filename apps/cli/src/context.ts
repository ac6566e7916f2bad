import { ApiClient } from "./client";
import { normalizeBaseUrl, resolveSettings } from "./config-file";
import { CliError, EXIT } from "./errors";
import type { Io } from "./io";

/** A client for the configured service (AX_URL / AX_TOKEN over the config file), or an error saying how to configure one. */
export async function connect(io: Io): Promise<ApiClient> {
  const settings = await resolveSettings(io.env);
  if (!settings.url) throw new CliError('No ax service configured: run "ax login --url URL" or set AX_URL.', EXIT.auth);
  if (!settings.token) throw new CliError('Not logged in: run "ax login" or set AX_TOKEN.', EXIT.auth);
  return new ApiClient(normalizeBaseUrl(settings.url), settings.token);
}
