import { open } from "node:fs/promises";
import { createRequire } from "node:module";
import { CWE_VERSION, flattenText, getCwe, normalizeCweId, searchCwe, warmCweCatalog } from "./cwe-catalog";

// The real catalogue from cwe-sdk; loading it once here is the cost the server pays at start-up.
beforeAll(() => warmCweCatalog());

describe("getCwe", () => {
  it("accepts the usual spellings of an id", async () => {
    for (const id of ["CWE-89", "cwe-89", "89", 89, "cwe 89", " CWE_89 ", "CWE-089"]) {
      expect((await getCwe(id))?.id).toBe("CWE-89");
    }
  });

  it("returns null for ids the catalogue lacks and for text that is not an id", async () => {
    expect(await getCwe("CWE-999999")).toBeNull();
    expect(await getCwe("sql injection")).toBeNull();
    expect(await getCwe("")).toBeNull();
    expect(normalizeCweId("CWE-79; drop table")).toBeNull();
  });

  it("turns an entry into compact, typed facts", async () => {
    const e = (await getCwe(89))!;
    expect(e.name).toMatch(/SQL Command \('SQL Injection'\)$/);
    expect(e.description).toMatch(/^The product constructs all or part of an SQL command/);
    expect(e).toMatchObject({ status: "Stable", abstraction: "Base", likelihood: "High" });
    expect(e.alternateTerms).toEqual(expect.arrayContaining(["SQL injection", "SQLi"]));
    // Only the Research Concepts view (1000) counts: CWE-74 is its parent in another view.
    expect(e.parents).toEqual(["CWE-943"]);
    expect(e.languages).toContain("Not Language-Specific");
    expect(e.consequences[0]).toMatchObject({
      scopes: ["Confidentiality", "Integrity", "Availability"],
      impacts: ["Execute Unauthorized Code or Commands"],
    });
    const parameterization = e.mitigations.find((m) => m.strategy === "Parameterization");
    expect(parameterization?.phases).toEqual(["Architecture and Design"]);
    expect(parameterization?.text).toMatch(/prepared statements, parameterized queries/);
    expect(e.observedExamples).toBeGreaterThan(5);
  });

  it("flattens the catalogue's XHTML lists and paragraphs into plain text without reference markers", async () => {
    const e = (await getCwe(79))!;
    for (const text of [
      e.description,
      e.extendedDescription!,
      ...e.mitigations.map((m) => m.text),
      ...e.consequences.map((c) => c.note ?? ""),
    ]) {
      expect(text).not.toMatch(/\[object Object\]|xhtml|\[REF-\d+\]|\s{2}|^\s|\s$/);
    }
    // The extended description holds an <ol> and a list of XSS types.
    expect(e.extendedDescription).toMatch(/Untrusted data enters a web application/);
    expect(e.extendedDescription).toMatch(/Reflected XSS/);
  });

  it("keeps deprecated entries reachable by id", async () => {
    const e = (await getCwe(71))!;
    expect(e.status).toBe("Deprecated");
    expect(e.description).toMatch(/deprecated/i);
  });
});

it("names the CWE release cwe-sdk ships", async () => {
  const file = await open(createRequire(import.meta.url).resolve("cwe-sdk/raw/cwe-archive.xml"));
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(300), 0, 300, 0);
    expect(buffer.subarray(0, bytesRead).toString("utf8")).toContain(`<Weakness_Catalog Name="CWE" Version="${CWE_VERSION}"`);
  } finally {
    await file.close();
  }
});

describe("flattenText", () => {
  it("joins strings, arrays, paragraphs, list items and #text, and ignores attributes", () => {
    const node = {
      "xhtml:p": ["First  paragraph.", "Second\n\t\tparagraph [REF-12]."],
      "xhtml:ul": { "xhtml:li": ["one", { "xhtml:b": "two", "#text": "bold" }] },
      "xhtml:div": { attr: { "@_style": "margin-left:1em;" }, "xhtml:br": "", "xhtml:div": 42 },
    };
    expect(flattenText(node)).toBe("First paragraph. Second paragraph. one two bold 42");
    expect(flattenText("  plain\n text ")).toBe("plain text");
    expect(flattenText(undefined)).toBe("");
    expect(flattenText([null, "a", ["b"]])).toBe("a b");
  });
});

describe("searchCwe", () => {
  const cases: [string, string[]][] = [
    ["what is SQL injection?", ["CWE-89"]],
    ["cross-site scripting", ["CWE-79"]],
    ["path traversal", ["CWE-22"]],
    ["deserialization", ["CWE-502"]],
    ["hardcoded password", ["CWE-798", "CWE-259"]],
    ["hard-coded credentials", ["CWE-798"]],
    ["SSRF", ["CWE-918"]],
    ["XXE", ["CWE-611"]],
    ["race condition", ["CWE-362"]],
    ["buffer overflow", ["CWE-120", "CWE-787", "CWE-119"]],
    ["IDOR", ["CWE-639"]],
    ["what is a TOCTOU bug", ["CWE-367"]],
    ["ReDoS", ["CWE-1333"]],
    ["open redirect", ["CWE-601"]],
    ["use after free", ["CWE-416"]],
    ["how do I prevent SQL injection in my Django app", ["CWE-89"]],
  ];

  it.each(cases)("%s finds %s in the top 3", async (query, expected) => {
    const top = (await searchCwe(query, 3)).map((h) => h.entry.id);
    expect(top.some((id) => expected.includes(id))).toBe(true);
  });

  it("puts the common entry first when many share the words", async () => {
    for (const [query, id] of [
      ["sql injection", "CWE-89"],
      ["path traversal", "CWE-22"],
      ["xss", "CWE-79"],
      ["race condition", "CWE-362"],
    ]) {
      expect((await searchCwe(query!, 1))[0]?.entry.id).toBe(id);
    }
  });

  it("never returns deprecated entries", async () => {
    const hits = await searchCwe("DS_Store apple deprecated", 10);
    expect(hits.every((h) => h.entry.status !== "Deprecated")).toBe(true);
  });

  it("finds nothing for questions with no security words", async () => {
    expect(await searchCwe("how do I cook pasta")).toEqual([]);
    expect(await searchCwe("what is it?")).toEqual([]);
  });

  it("answers from memory once warm", async () => {
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const start = performance.now();
      await searchCwe("how do I fix a hard-coded password in my config?");
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    expect(times[10]).toBeLessThan(20);
  });
});
