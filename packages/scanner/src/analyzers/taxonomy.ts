/**
 * CWE names and OWASP Top 10 (2021) categories for third-party findings. Names come from
 * @ax/rules' taxonomy (the official MITRE names the rule pack also uses), loaded lazily like
 * rule-pack.ts does: @ax/rules reads its rule files when imported, which must not happen at
 * scanner import time, and a worker without the pack must still run bandit or cppcheck.
 * A few CWEs that third-party tools emit but the rule pack never uses are named here.
 */
const RULES_MODULE = "@ax/rules";

/** Official MITRE names of CWEs that tools emit and @ax/rules' table does not carry. */
export const EXTRA_CWE_NAMES: Readonly<Record<string, string>> = {
  "CWE-114": "Process Control",
  "CWE-155": "Improper Neutralization of Wildcards or Matching Symbols",
  "CWE-284": "Improper Access Control",
  "CWE-398": "7PK - Code Quality",
  "CWE-456": "Missing Initialization of a Variable",
  "CWE-494": "Download of Code Without Integrity Check",
  "CWE-562": "Return of Stack Variable Address",
  "CWE-570": "Expression is Always False",
  "CWE-571": "Expression is Always True",
  "CWE-605": "Multiple Binds to the Same Port",
  "CWE-628": "Function Call with Incorrectly Specified Arguments",
  "CWE-664": "Improper Control of a Resource Through its Lifetime",
  "CWE-672": "Operation on a Resource after Expiration or Release",
  "CWE-685": "Function Call With Incorrect Number of Arguments",
  "CWE-686": "Function Call With Incorrect Argument Type",
  "CWE-697": "Incorrect Comparison",
  "CWE-785": "Use of Path Manipulation Function without Maximum-sized Buffer",
  "CWE-786": "Access of Memory Location Before Start of Buffer",
  "CWE-788": "Access of Memory Location After End of Buffer",
  "CWE-807": "Reliance on Untrusted Inputs in a Security Decision",
  "CWE-825": "Expired Pointer Dereference",
  "CWE-838": "Inappropriate Encoding for Output Context",
  "CWE-910": "Use of Expired File Descriptor",
  "CWE-1327": "Binding to an Unrestricted IP Address",
};

/** OWASP Top 10 (2021), spelled as in @ax/rules' OWASP_2021. */
const A01 = "A01:2021-Broken Access Control";
const A02 = "A02:2021-Cryptographic Failures";
const A03 = "A03:2021-Injection";
const A04 = "A04:2021-Insecure Design";
const A05 = "A05:2021-Security Misconfiguration";
const A07 = "A07:2021-Identification and Authentication Failures";
const A08 = "A08:2021-Software and Data Integrity Failures";
const A09 = "A09:2021-Security Logging and Monitoring Failures";
const A10 = "A10:2021-Server-Side Request Forgery (SSRF)";

/**
 * The category whose official CWE list contains the CWE (owasp.org/Top10, "List of Mapped
 * CWEs"). Where a CWE is listed twice (CWE-259 in A02 and A07) the authentication one wins.
 * Memory-safety CWEs are in no category: their findings carry `owasp: null`.
 */
const OWASP_BY_CWE: Readonly<Record<number, string>> = {
  ...Object.fromEntries(
    [22, 23, 35, 59, 200, 201, 219, 276, 284, 285, 352, 359, 377, 425, 552, 601, 639, 668, 706, 862, 863, 922, 1275].map((n) => [n, A01]),
  ),
  ...Object.fromEntries(
    [
      261, 296, 310, 319, 321, 322, 323, 324, 325, 326, 327, 328, 329, 330, 331, 335, 336, 337, 338, 340, 347, 523, 720, 757, 759, 760, 780,
      818, 916,
    ].map((n) => [n, A02]),
  ),
  ...Object.fromEntries(
    [
      20, 74, 75, 77, 78, 79, 80, 83, 87, 88, 89, 90, 91, 93, 94, 95, 96, 97, 98, 99, 100, 113, 116, 138, 184, 470, 471, 564, 610, 643, 644,
      652, 917,
    ].map((n) => [n, A03]),
  ),
  ...Object.fromEntries(
    [
      73, 183, 209, 213, 256, 257, 266, 269, 280, 311, 312, 313, 316, 419, 430, 434, 444, 451, 472, 501, 522, 525, 539, 579, 598, 602, 642,
      646, 650, 653, 656, 657, 799, 807, 840, 841, 927, 1021, 1173,
    ].map((n) => [n, A04]),
  ),
  ...Object.fromEntries(
    [2, 11, 13, 15, 16, 260, 315, 520, 526, 537, 541, 547, 611, 614, 756, 776, 942, 1004, 1032, 1174].map((n) => [n, A05]),
  ),
  ...Object.fromEntries(
    [255, 259, 287, 288, 290, 294, 295, 297, 300, 302, 304, 306, 307, 346, 384, 521, 613, 620, 640, 798, 940, 1216].map((n) => [n, A07]),
  ),
  ...Object.fromEntries([345, 353, 426, 494, 502, 565, 784, 829, 830, 915].map((n) => [n, A08])),
  ...Object.fromEntries([117, 223, 532, 778].map((n) => [n, A09])),
  918: A10,
};

export function owaspFor(cwe: string | null): string | null {
  const n = cwe ? Number(/^CWE-(\d+)$/.exec(cwe)?.[1]) : NaN;
  return OWASP_BY_CWE[n] ?? null;
}

export interface Taxonomy {
  cweName(cwe: string | null): string | null;
}

let cached: Promise<Taxonomy> | undefined;

/** The taxonomy; without @ax/rules (or with a broken one) only EXTRA_CWE_NAMES names CWEs. */
export function loadTaxonomy(): Promise<Taxonomy> {
  cached ??= importNames().then((names) => ({
    cweName: (cwe) => (cwe ? (names?.(cwe) ?? EXTRA_CWE_NAMES[cwe] ?? null) : null),
  }));
  return cached;
}

async function importNames(): Promise<((cwe: string) => string | null) | null> {
  try {
    const mod = (await import(RULES_MODULE)) as Record<string, unknown>;
    const fn = mod.cweName;
    if (typeof fn !== "function") return null;
    return (cwe) => {
      const name: unknown = fn(cwe);
      return typeof name === "string" && name.length > 0 ? name : null;
    };
  } catch {
    // A missing or broken pack costs names, never a bandit or cppcheck run.
    return null;
  }
}
