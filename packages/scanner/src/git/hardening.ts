/**
 * The git configuration and environment every git process of the scanner runs with. The
 * repository is untrusted: git promises that cloning one is safe, but not that config,
 * hooks or helpers inherited from the worker's machine are. So nothing is inherited (no
 * system or global config, an explicit minimal environment) and the risky features are
 * switched off per command with `-c`. README.md explains each value.
 */
import type { SimpleGitOptions } from "simple-git";
import { toolPath } from "../process-env";

export function hardenedGitConfig(allowInsecure: boolean): string[] {
  const protocols = [
    // Deny-by-default: only the transports named below; ext::, fd::, ssh, git:// are never usable.
    "protocol.allow=never",
    "protocol.https.allow=always",
    ...(allowInsecure ? ["protocol.http.allow=always", "protocol.file.allow=always"] : []),
  ];
  return [
    ...protocols,
    // Symlinks are checked out as plain files holding the link text: nothing in the tree can
    // point an analyzer (or an LLM prompt) at /etc/passwd or a mounted secret. Also blocks
    // the CVE-2024-32002 family, which needs real symlinks.
    "core.symlinks=false",
    // No hook from any source runs, whatever a config or template directory says.
    "core.hooksPath=/dev/null",
    // fsmonitor names a command to run; an attacker-shaped tree must never choose it.
    "core.fsmonitor=false",
    // A bare repository buried in the checkout is not used unless named with --git-dir.
    "safe.bareRepository=explicit",
    // A redirect could point the clone at an internal host after our address check.
    "http.followRedirects=false",
    "submodule.recurse=false",
    // Empty resets the helper list: no stored credentials are offered to any server.
    "credential.helper=",
  ];
}

/** Only the protocols the config above allows; git applies this even if config were bypassed. */
function allowedProtocols(allowInsecure: boolean): string {
  return allowInsecure ? "https:http:file" : "https";
}

/** An explicit environment: nothing from the worker (DATABASE_URL, keys, GIT_* settings) leaks in. */
export function hardenedGitEnv(home: string, allowInsecure: boolean): Record<string, string> {
  return {
    PATH: toolPath(),
    HOME: home,
    // English, stable messages: clone-errors.ts matches on them.
    LANG: "C",
    LC_ALL: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PROTOCOL_FROM_USER: "0",
    GIT_ALLOW_PROTOCOL: allowedProtocols(allowInsecure),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    // LFS objects are fetched from URLs the repository names; never follow them.
    GIT_LFS_SKIP_SMUDGE: "1",
  };
}

/**
 * simple-git 3.36 refuses `-c` keys and env vars that can run commands unless opted in. We
 * opt in exactly for the keys we set above, to the safe values above; user input never
 * reaches the `-c` list or the environment (the URL and branch are validated positionals).
 */
export const SIMPLE_GIT_OPT_INS: SimpleGitOptions["unsafe"] = {
  allowUnsafeProtocolOverride: true, // protocol.allow=never / protocol.<x>.allow
  allowUnsafeHooksPath: true, // core.hooksPath=/dev/null
  allowUnsafeFsMonitor: true, // core.fsmonitor=false
  allowUnsafeCredentialHelper: true, // credential.helper=
  allowUnsafeConfigPaths: true, // GIT_CONFIG_GLOBAL=/dev/null
};
