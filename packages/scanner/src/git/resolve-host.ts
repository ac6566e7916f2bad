/**
 * Name-resolution check before a clone. checkGitUri already refuses literal internal
 * addresses; this catches names that resolve to them (a public name pointing at 10.0.0.5,
 * 169.254.169.254 or 127.0.0.1). It is defence in depth only: git resolves the name again
 * when it connects, so a DNS-rebinding server can answer differently the second time. The
 * deployment must also block the worker's egress to internal ranges (README.md).
 */
import { lookup } from "node:dns/promises";
import { isInternalAddress } from "@ax/contracts";
import { ScanInputError } from "../errors";

export type ResolveHost = (host: string) => Promise<string[]>;

export const resolveWithSystem: ResolveHost = async (host) => {
  const answers = await lookup(host, { all: true, verbatim: true });
  return answers.map((a) => a.address);
};

const PERMANENT_DNS_CODES = new Set(["ENOTFOUND", "ENODATA", "ENONAME"]);

export async function assertPublicHost(host: string, resolve: ResolveHost): Promise<void> {
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    // "No such name" is the caller's mistake; a resolver hiccup (EAI_AGAIN) is worth a retry.
    if (typeof code === "string" && PERMANENT_DNS_CODES.has(code)) {
      throw new ScanInputError(`The host ${host} could not be resolved.`);
    }
    throw err;
  }
  if (addresses.length === 0) throw new ScanInputError(`The host ${host} could not be resolved.`);
  // Any internal answer refuses the host: git may pick any of them.
  if (addresses.some((a) => isInternalAddress(a))) {
    throw new ScanInputError(`The host ${host} resolves to a private, loopback or link-local address.`);
  }
}
