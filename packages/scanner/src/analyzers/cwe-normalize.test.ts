import { OWASP_2021 } from "@ax/rules";
import { correctionReason, cweTableDigest, normalizeCwe, tableCwes } from "./cwe-normalize";
import { SECURITY_CHECKS } from "./shellcheck";
import { loadTaxonomy, owaspFor } from "./taxonomy";

describe("normalizeCwe", () => {
  it("corrects bandit's eval from OS command injection to eval injection, with a reason", () => {
    expect(normalizeCwe("bandit", "B307", "CWE-78")).toBe("CWE-95");
    expect(normalizeCwe("bandit", "B307", null)).toBe("CWE-95");
    expect(correctionReason("bandit", "B307")).toMatch(/eval injection/);
  });

  it("keeps a tool's own CWE where there is no correction, and falls back to the table when it says nothing", () => {
    expect(normalizeCwe("bandit", "B602", "CWE-78")).toBe("CWE-78");
    // Debian 12's bandit 1.6.2 reports no CWE: what newer releases say is used.
    expect(normalizeCwe("bandit", "B602", null)).toBe("CWE-78");
    expect(normalizeCwe("bandit", "B999", null)).toBeNull();
    expect(normalizeCwe("semgrep", "any.rule", "CWE-89")).toBe("CWE-89");
    expect(correctionReason("bandit", "B602")).toBeNull();
  });

  it("corrects other tools: flawfinder's PRNG, cppcheck's scanf, bandit imports that are not weaknesses", () => {
    expect(normalizeCwe("flawfinder", "srand", "CWE-327")).toBe("CWE-338");
    expect(normalizeCwe("flawfinder", "strcpy", "CWE-120")).toBe("CWE-120");
    expect(normalizeCwe("cppcheck", "invalidscanf", "CWE-119")).toBe("CWE-120");
    expect(normalizeCwe("bandit", "B404", "CWE-78")).toBeNull();
    expect(normalizeCwe("bandit", "B506", "CWE-20")).toBe("CWE-502");
  });

  it("has a stable digest per tool for the cache key", () => {
    expect(cweTableDigest("bandit")).toMatch(/^[0-9a-f]{8}$/);
    expect(cweTableDigest("bandit")).toBe(cweTableDigest("bandit"));
    expect(cweTableDigest("bandit")).not.toBe(cweTableDigest("cppcheck"));
  });
});

describe("taxonomy", () => {
  it("names every CWE the tables and the shellcheck mapping can produce", async () => {
    const taxonomy = await loadTaxonomy();
    const cwes = [
      ...tableCwes("bandit"),
      ...tableCwes("flawfinder"),
      ...tableCwes("cppcheck"),
      ...Object.values(SECURITY_CHECKS).map((c) => c.cwe),
    ];
    const unnamed = cwes.filter((c): c is string => c !== null).filter((c) => taxonomy.cweName(c) === null);
    expect(unnamed).toEqual([]);
    expect(taxonomy.cweName("CWE-95")).toMatch(/Eval Injection/);
    expect(taxonomy.cweName(null)).toBeNull();
  });

  it("maps CWEs to the OWASP 2021 categories exactly as @ax/rules spells them", () => {
    const known = new Set<string>(OWASP_2021);
    for (const cwe of ["CWE-22", "CWE-327", "CWE-89", "CWE-501", "CWE-611", "CWE-798", "CWE-502", "CWE-117", "CWE-918"]) {
      const owasp = owaspFor(cwe);
      expect([cwe, owasp !== null && known.has(owasp)]).toEqual([cwe, true]);
    }
    expect(owaspFor("CWE-787")).toBeNull();
    expect(owaspFor(null)).toBeNull();
  });
});
