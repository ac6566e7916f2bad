/**
 * Validation of the `git_uri` a caller asks us to clone. This is a security boundary: the
 * worker will hand the value to git, so anything that git could read as an option, a
 * transport helper (`ext::`, `fd::`), a local path or an internal address is refused here,
 * before any connection is attempted. The worker checks again after name resolution.
 *
 * The host we validate is the host git connects to: the accepted value is the WHATWG
 * serialisation of the URL, which git is given. So nothing that the parser would quietly
 * turn into another host passes: an empty authority (`https:///x` parses as host `x`, so does
 * `https://\\x`), an '@' in the authority, percent-escapes in the host. Internationalised names are
 * converted to their ASCII (xn--) form by the parser (UTS #46, as `url.domainToASCII`), which
 * refuses invalid Punycode; the result must be a valid host name, and the stored and cloned
 * URL carries that ASCII form.
 */

export interface GitUriPolicy {
  /** Allow http://, file:// and absolute local paths (tests, air-gapped mirrors). */
  allowInsecure: boolean;
}

export type GitUriCheck = { ok: true; url: string; canonical: string; host: string | null } | { ok: false; reason: string };

const MAX_URI_LENGTH = 2048;

export function checkGitUri(raw: string, policy: GitUriPolicy): GitUriCheck {
  const uri = raw.trim();
  if (uri.length === 0) return { ok: false, reason: "git_uri must not be empty." };
  if (uri.length > MAX_URI_LENGTH) return { ok: false, reason: `git_uri must be at most ${MAX_URI_LENGTH} characters.` };
  if (uri.startsWith("-")) return { ok: false, reason: "git_uri must not start with '-'." };
  // "<helper>::<address>" selects a remote helper (ext:: runs a command). IPv6 hosts contain
  // "::" too, but only after the first "/".
  if (/^[^/]*::/.test(uri)) return { ok: false, reason: "git transport helpers ('::') are not allowed in git_uri." };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\s]/.test(uri))
    return { ok: false, reason: "git_uri must not contain whitespace or control characters." };
  if (/(^|[/\\])\.\.([/\\]|$)/.test(uri) || /%2e%2e/i.test(uri)) return { ok: false, reason: "git_uri must not contain '..' segments." };

  // Percent-escapes must be well formed ('%ZZ' reaches the server as written and fails there),
  // and an escaped control character is one all the same.
  if (/%(?![0-9a-f]{2})/i.test(uri)) return { ok: false, reason: "git_uri has a '%' that is not followed by two hexadecimal digits." };
  if (/%(?:[01][0-9a-f]|7f)/i.test(uri))
    return { ok: false, reason: "git_uri must not contain whitespace or control characters, escaped or not." };

  if (uri.startsWith("/")) {
    if (!policy.allowInsecure) return { ok: false, reason: "Local paths are not allowed; use an https:// URL." };
    return { ok: true, url: uri, canonical: `file://${stripGitSuffix(uri)}`, host: null };
  }

  // scp-style "user@host:path" has no scheme; git would use ssh for it.
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(uri)) {
    return { ok: false, reason: "git_uri must be an https:// URL (scp-style and scheme-less addresses are not allowed)." };
  }

  // What stands between "//" and the path, as written (the parser also ends it at '\\').
  const authority = /^[^:]+:\/\/([^/\\?#]*)/.exec(uri)?.[1] ?? "";
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    const idn = /[^\x20-\x7e]|xn--/i.test(authority);
    return {
      ok: false,
      reason: idn ? "git_uri is not a valid URL: its host is not a valid internationalised domain name." : "git_uri is not a valid URL.",
    };
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  const allowed = policy.allowInsecure ? ["https", "http", "file"] : ["https"];
  if (!allowed.includes(scheme)) {
    return { ok: false, reason: policy.allowInsecure ? "git_uri must use https, http or file." : "git_uri must use https." };
  }
  // "https://@host" parses with no credentials, but '@' has no other business in an authority.
  if (url.username || url.password || authority.includes("@")) return { ok: false, reason: "git_uri must not contain credentials." };
  if (url.search || url.hash) return { ok: false, reason: "git_uri must not contain a query string or fragment." };

  if (scheme === "file") {
    if (url.host) return { ok: false, reason: "file:// URLs must not name a host." };
    return { ok: true, url: uri, canonical: `file://${stripGitSuffix(url.pathname)}`, host: null };
  }

  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, "");
  if (!host || authority === "" || authority.startsWith(":"))
    return { ok: false, reason: "git_uri must name a host after '//' (as in https://host/owner/repo)." };
  // Internal hosts first: however they are spelled, that is the reason worth giving.
  if (!policy.allowInsecure) {
    const why = internalHostReason(host);
    if (why) return { ok: false, reason: why };
  }
  if (authority.includes("%")) return { ok: false, reason: "git_uri's host must not contain percent-escapes." };
  if (!host.includes(":")) {
    const why = hostNameReason(host);
    if (why) return { ok: false, reason: why };
  }
  const port = url.port ? `:${url.port}` : "";
  const canonical = `${scheme}://${host}${port}${stripGitSuffix(url.pathname).toLowerCase()}`;
  return { ok: true, url: url.toString(), canonical, host };
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Why an ASCII host name (as the URL parser left it: lower case, IDN converted) is not one git
 * could reach, or null: letters, digits and hyphens in labels of 1–63 characters that neither
 * start nor end with a hyphen, at most 253 in all (one trailing dot allowed). The parser lets
 * `xn--zz-` through, Punycode for plain "zz" (another name): the hyphen rule refuses it.
 */
function hostNameReason(host: string): string | null {
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  if (name.length > 253 || !name.split(".").every((l) => LABEL.test(l))) {
    return "git_uri's host is not a valid host name (letters, digits and hyphens, in dot-separated labels).";
  }
  return null;
}

function stripGitSuffix(path: string): string {
  return path.replace(/\/+$/, "").replace(/\.git$/i, "");
}

/** Why a host must not be cloned from, or null. Literal addresses only; names are checked after DNS. */
export function internalHostReason(host: string): string | null {
  const h = host
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  if (h === "localhost" || h.endsWith(".localhost") || h.endsWith(".local") || h.endsWith(".internal")) {
    return "git_uri must not point at a local or internal host.";
  }
  if (isInternalAddress(h)) return "git_uri must not point at a private, loopback or link-local address.";
  return null;
}

/** True for loopback, private, link-local, CGNAT, multicast, unspecified and similar addresses. */
export function isInternalAddress(address: string): boolean {
  const a = address.toLowerCase().replace(/^\[|\]$/g, "");
  const v4 = parseIpv4(a);
  if (v4) return isInternalIpv4(v4);
  if (!a.includes(":")) {
    // Hosts such as "2130706433" or "0x7f.1" are numeric IPv4 spellings that resolvers accept.
    return /^(0x[0-9a-f]+|\d+)(\.(0x[0-9a-f]+|\d+)){0,3}$/.test(a);
  }
  if (a === "::" || a === "::1") return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped?.[1]) {
    const inner = parseIpv4(mapped[1]);
    return inner ? isInternalIpv4(inner) : true;
  }
  if (/^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/.test(a)) return true; // mapped, hex form: refuse
  const first = parseInt(a.split(":")[0] || "0", 16);
  if ((first & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((first & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((first & 0xff00) === 0xff00) return true; // multicast
  if (a.startsWith("64:ff9b:")) return true; // NAT64 can reach IPv4 internals
  return false;
}

function parseIpv4(a: string): [number, number, number, number] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(a);
  if (!m) return null;
  const parts = m.slice(1).map(Number) as [number, number, number, number];
  return parts.every((p) => p <= 255) ? parts : null;
}

function isInternalIpv4([a, b]: [number, number, number, number]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}
