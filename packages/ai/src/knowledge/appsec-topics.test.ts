import { APPSEC_TOPICS, getTopic, searchTopics } from "./appsec-topics";
import { getCwe } from "./cwe-catalog";
import { matchStrength } from "./retrieval";

describe("APPSEC_TOPICS", () => {
  it("covers the OWASP Top 10 (2021) and everyday practices, with unique ids", () => {
    expect(APPSEC_TOPICS.length).toBeGreaterThanOrEqual(25);
    expect(APPSEC_TOPICS.length).toBeLessThanOrEqual(40);
    expect(new Set(APPSEC_TOPICS.map((t) => t.id)).size).toBe(APPSEC_TOPICS.length);
    for (const n of ["01", "02", "03", "04", "05", "06", "07", "08", "09", "10"]) {
      expect(APPSEC_TOPICS.some((t) => t.title.startsWith(`A${n}:2021 `))).toBe(true);
    }
  });

  it("names only weaknesses that MITRE's catalogue has and has not deprecated", async () => {
    for (const topic of APPSEC_TOPICS) {
      for (const id of topic.cwes) {
        const entry = await getCwe(id);
        expect({ topic: topic.id, id, status: entry?.status ?? "missing" }).toEqual({
          topic: topic.id,
          id,
          status: expect.not.stringMatching(/^(missing|Deprecated)$/),
        });
      }
    }
  });

  it("links only to OWASP and MITRE over https", () => {
    for (const url of APPSEC_TOPICS.flatMap((t) => t.references ?? [])) {
      expect(new URL(url).protocol).toBe("https:");
      expect(new URL(url).hostname).toMatch(/^(owasp\.org|cheatsheetseries\.owasp\.org|cwe\.mitre\.org)$/);
    }
  });

  it("has short Markdown bodies", () => {
    for (const t of APPSEC_TOPICS) {
      expect(t.body.length).toBeGreaterThan(200);
      expect(t.body.length).toBeLessThan(1_600);
      expect(t.body).not.toMatch(/^#/m);
    }
  });
});

describe("searchTopics", () => {
  const cases: [string, string][] = [
    ["how should I store passwords?", "password-storage"],
    ["what is CORS?", "cors"],
    ["what is SSRF?", "a10-ssrf"],
    ["explain the OWASP top 10", "owasp-top-10"],
    ["what is A03?", "a03-injection"],
    ["JWT best practices", "jwt-pitfalls"],
    ["how do I manage secrets", "secrets-management"],
    ["what's the difference between SAST and DAST", "sast-dast-sca"],
    ["which security headers should I set", "security-headers"],
    ["how to upload files securely", "file-upload"],
    ["what is mass assignment", "mass-assignment"],
    ["how to set cookies securely", "cookie-flags"],
    ["broken access control", "a01-broken-access-control"],
    ["how do we do threat modeling", "threat-modeling"],
  ];

  it.each(cases)("%s finds %s", (query, id) => {
    const hits = searchTopics(query, 3);
    expect(hits.map((h) => h.item.id)).toContain(id);
    expect(matchStrength(hits.find((h) => h.item.id === id))).toBe("strong");
  });

  it("finds nothing strong for questions outside its subject", () => {
    for (const query of ["who won the world cup?", "what is the capital of France", "how do I secure my kubernetes cluster"]) {
      expect(searchTopics(query, 3).filter((h) => matchStrength(h) === "strong")).toEqual([]);
    }
  });

  it("gets a topic by id", () => {
    expect(getTopic("cors")?.title).toMatch(/CORS/);
    expect(getTopic("nope")).toBeNull();
  });
});
