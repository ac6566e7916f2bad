import { expandQuery } from "./acronyms";
import { createIndex, matchStrength, terms } from "./retrieval";
import { sentences, summarize } from "./summarize";

describe("terms", () => {
  it("drops question words, stems plurals and keeps hyphenated words joined as well as split", () => {
    expect(terms("How do I fix hard-coded passwords?")).toEqual({
      words: ["hardcoded", "hard", "coded", "password"],
      pairs: ["hard coded", "coded password"],
    });
    expect(terms("What is the policy for libraries?").words).toEqual(["policy", "library"]);
    expect(terms("the attacker's payload").words).toEqual(["attacker", "payload"]);
  });
});

describe("createIndex", () => {
  const docs = [
    { name: "Password storage", body: "Hash passwords with Argon2id." },
    { name: "Session cookies", body: "Cookies carry the session; a password is never stored in them." },
    { name: "Logging", body: "Never log a password or a token. Logs are copied widely." },
  ];
  const index = createIndex(docs, {
    specs: { name: { weight: 3, heading: true, b: 0.3 }, body: { weight: 1 } },
    fields: (d) => d,
  });

  it("ranks a document named by the query above ones that mention it", () => {
    const hits = index.search("password storage");
    expect(hits).toHaveLength(3);
    expect(hits[0]).toMatchObject({ item: docs[0], coverage: 1, headingCoverage: 1 });
    expect(hits[1]!.headingCoverage).toBe(0);
  });

  it("lowers coverage for words no document contains, but not for the user's stack", () => {
    const [hit] = index.search("password kubernetes");
    expect(hit!.coverage).toBeLessThan(0.6);
    expect(index.search("password storage in my django app")[0]!.coverage).toBe(1);
  });

  it("counts shorthand as covered where its expansion is found", () => {
    const plain = index.search("pw cookies");
    const expanded = index.search("pw cookies", { expansions: [{ words: "pw", text: "password" }] });
    expect(plain[0]!.coverage).toBeLessThan(1);
    expect(expanded.find((h) => h.item.name === "Session cookies")!.coverage).toBe(1);
  });

  it("applies a prior", () => {
    const boosted = createIndex(docs, { specs: { body: { weight: 1 } }, fields: (d) => d, prior: (d) => (d.name === "Logging" ? 10 : 1) });
    expect(boosted.search("password")[0]!.item.name).toBe("Logging");
  });
});

describe("matchStrength", () => {
  it("needs the query in the name to be strong, and some of it there to be weak", () => {
    expect(matchStrength({ coverage: 1, headingCoverage: 1 })).toBe("strong");
    expect(matchStrength({ coverage: 0.8, headingCoverage: 0.2 })).toBe("strong");
    expect(matchStrength({ coverage: 0.6, headingCoverage: 0.1 })).toBe("weak");
    expect(matchStrength({ coverage: 1, headingCoverage: 0 })).toBe("none");
    expect(matchStrength(undefined)).toBe("none");
  });
});

describe("expandQuery", () => {
  it("spells out shorthand and names its CWE entries", () => {
    expect(expandQuery("is this XSS or CSRF?")).toEqual({
      expansions: [
        { words: "xss", text: "cross-site scripting" },
        { words: "csrf", text: "cross-site request forgery" },
      ],
      cwes: ["CWE-79", "CWE-352"],
    });
    expect(expandQuery("prototype pollution in lodash").cwes).toEqual(["CWE-1321"]);
    expect(expandQuery("SSRFs").cwes).toEqual(["CWE-918"]);
  });

  it("ignores words that are only object properties", () => {
    expect(expandQuery("constructor toString hasOwnProperty")).toEqual({ expansions: [], cwes: [] });
  });
});

describe("summarize", () => {
  const text = "First sentence, e.g. with an abbreviation. Second one (short). Third sentence is here.";

  it("splits sentences without breaking at e.g.", () => {
    expect(sentences(text)).toEqual(["First sentence, e.g. with an abbreviation.", "Second one (short).", "Third sentence is here."]);
  });

  it("keeps whole leading sentences within the limit, or cuts a long first one at a word", () => {
    expect(summarize(text, 70)).toBe("First sentence, e.g. with an abbreviation. Second one (short).");
    expect(summarize(text, 500)).toBe(text);
    expect(summarize(text, 20)).toBe("First sentence,…");
    expect(summarize("", 20)).toBe("");
  });
});
