/**
 * CWE tags of third-party analyzers, normalized. Tools tag some checks with a CWE that is
 * wrong or vaguer than it should be (bandit tags eval as CWE-78, OS command injection, where
 * CWE-95, eval injection, is right). Wrong CWEs mislead reviewers, break per-CWE measurement,
 * and stop cross-analyzer merging, which joins reports of the same CWE on the same line: the
 * rule pack says CWE-95 for eval, so bandit must too.
 *
 * Keyed by tool and the tool's own check id. Every correction says why. When a tool reports
 * no CWE at all (bandit before 1.7.3, e.g. Debian 12's 1.6.2), DEFAULT_CWE holds what newer
 * releases tag, and corrections apply on top.
 */
import { createHash } from "node:crypto";

interface Correction {
  cwe: string | null;
  why: string;
}

const CORRECTIONS: Readonly<Record<string, Readonly<Record<string, Correction>>>> = {
  bandit: {
    B102: { cwe: "CWE-95", why: "exec() runs Python code, not an OS command: eval injection, not CWE-78." },
    B104: { cwe: "CWE-1327", why: "Binding 0.0.0.0 is binding to an unrestricted address; CWE-605 is several sockets on one port." },
    B105: { cwe: "CWE-798", why: "The parent of CWE-259 and the id the rule pack and secrets detector use, so the reports merge." },
    B106: { cwe: "CWE-798", why: "As B105: hard-coded password passed as an argument." },
    B107: { cwe: "CWE-798", why: "As B105: hard-coded password as a default argument." },
    B201: {
      cwe: "CWE-489",
      why: "The weakness is active debug code (the rule pack's id); code execution via the debugger is its consequence.",
    },
    B303: { cwe: "CWE-328", why: "MD2/MD4/MD5/SHA-1 are weak hashes (CWE-328), not a broken cipher (CWE-327)." },
    B324: { cwe: "CWE-328", why: "As B303: hashlib with an insecure hash name." },
    B307: { cwe: "CWE-95", why: "eval() evaluates Python expressions: eval injection, not OS command injection (CWE-78)." },
    B311: { cwe: "CWE-338", why: "The random module is a non-cryptographic PRNG: CWE-338, the specific child of CWE-330." },
    B322: { cwe: "CWE-95", why: "Python 2 input() evaluates what is typed as Python: eval injection, not OS command injection." },
    B404: { cwe: null, why: "Importing subprocess is not command injection; the calls themselves are B602-B607." },
    B506: { cwe: "CWE-502", why: "yaml.load builds arbitrary objects: unsafe deserialization, not generic input validation (CWE-20)." },
    B701: { cwe: "CWE-79", why: "Jinja2 with autoescape off renders unescaped HTML: cross-site scripting, not code injection." },
    B702: { cwe: "CWE-79", why: "Mako templates do not escape by default: XSS; CWE-79 as for B308, which checks the same sink class." },
    B703: { cwe: "CWE-79", why: "Same mark_safe sink as B308, which bandit tags CWE-79; CWE-80 would split one issue in two." },
    ...Object.fromEntries(
      ["B313", "B314", "B315", "B316", "B317", "B318", "B319", "B320", "B405", "B406", "B407", "B408", "B409", "B410", "B411"].map((id) => [
        id,
        {
          cwe: "CWE-611",
          why: "Parsing XML with the standard library or lxml: XXE and entity expansion, not generic input validation (CWE-20).",
        },
      ]),
    ),
  },
  flawfinder: {
    ...Object.fromEntries(
      ["srand", "srandom", "random", "drand48", "erand48", "jrand48", "lcong48", "lrand48", "mrand48", "nrand48", "seed48", "srand48"].map(
        (fn) => [fn, { cwe: "CWE-338", why: "A non-cryptographic PRNG is CWE-338; CWE-327 is a broken or risky cryptographic algorithm." }],
      ),
    ),
  },
  cppcheck: {
    invalidscanf: {
      cwe: "CWE-120",
      why: "scanf %s without a width is an unbounded copy (CWE-120, as flawfinder tags it), a child of CWE-119.",
    },
  },
};

/** What bandit >= 1.7.3 tags each check with (issue_cwe), for releases that tag nothing. */
const DEFAULT_CWE: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  bandit: {
    B101: 703,
    B102: 78,
    B103: 732,
    B104: 605,
    B105: 259,
    B106: 259,
    B107: 259,
    B108: 377,
    B110: 703,
    B112: 703,
    B113: 400,
    B201: 94,
    B202: 22,
    B301: 502,
    B302: 502,
    B303: 327,
    B304: 327,
    B305: 327,
    B306: 377,
    B307: 78,
    B308: 79,
    B309: 295,
    B310: 22,
    B311: 330,
    B312: 319,
    B313: 20,
    B314: 20,
    B315: 20,
    B316: 20,
    B317: 20,
    B318: 20,
    B319: 20,
    B320: 20,
    B321: 319,
    B322: 78,
    B323: 295,
    B324: 327,
    B325: 377,
    B401: 319,
    B402: 319,
    B403: 502,
    B404: 78,
    B405: 20,
    B406: 20,
    B407: 20,
    B408: 20,
    B409: 20,
    B410: 20,
    B411: 20,
    B412: 284,
    B413: 327,
    B415: 319,
    B501: 295,
    B502: 327,
    B503: 327,
    B504: 327,
    B505: 326,
    B506: 20,
    B507: 295,
    B508: 319,
    B509: 319,
    B601: 78,
    B602: 78,
    B603: 78,
    B604: 78,
    B605: 78,
    B606: 78,
    B607: 78,
    B608: 89,
    B609: 155,
    B610: 89,
    B611: 89,
    B612: 94,
    B613: 838,
    B614: 502,
    B615: 494,
    B701: 94,
    B702: 80,
    B703: 80,
    B704: 79,
  },
};

/** The CWE to report for `tool`'s check `id`, given what the tool said (or null). */
export function normalizeCwe(tool: string, id: string, reported: string | null): string | null {
  const correction = CORRECTIONS[tool]?.[id];
  if (correction) return correction.cwe;
  if (reported) return reported;
  const fallback = DEFAULT_CWE[tool]?.[id];
  return fallback ? `CWE-${fallback}` : null;
}

/** Why `id`'s CWE is corrected, or null when the tool's own tag is used. */
export function correctionReason(tool: string, id: string): string | null {
  return CORRECTIONS[tool]?.[id]?.why ?? null;
}

/** Every CWE the tables can produce for a tool (for tests: each must have a name). */
export function tableCwes(tool: string): string[] {
  const out = new Set<string>();
  for (const c of Object.values(CORRECTIONS[tool] ?? {})) if (c.cwe) out.add(c.cwe);
  for (const [id, n] of Object.entries(DEFAULT_CWE[tool] ?? {})) if (!CORRECTIONS[tool]?.[id]) out.add(`CWE-${n}`);
  return [...out];
}

/**
 * A short digest of a tool's tables. Adapters put it in their version string, which is part
 * of the result cache key: changing a mapping invalidates cached findings of that tool.
 */
export function cweTableDigest(tool: string): string {
  const body = JSON.stringify([CORRECTIONS[tool] ?? {}, DEFAULT_CWE[tool] ?? {}]);
  return createHash("sha256").update(body).digest("hex").slice(0, 8);
}
