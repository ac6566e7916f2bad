import { clip, codeBlock, escapeInline, escapeParagraphs, inlineCode, languageFromPath, link, table } from "./markdown";

describe("escapeInline", () => {
  it("turns HTML into text", () => {
    const out = escapeInline("<img src=x onerror=alert(1)>");
    expect(out).not.toMatch(/<|>/);
    expect(out).toBe("&lt;img src=x onerror=alert\\(1\\)&gt;");
  });

  it("breaks link syntax, so no javascript: link can be made", () => {
    const out = escapeInline("[click](javascript:alert(1))");
    expect(out).toBe("\\[click\\]\\(javascript:alert\\(1\\)\\)");
    expect(out).not.toMatch(/(?<!\\)\[/);
    expect(escapeInline("![x](https://evil.example/p.png)")).toBe("\\!\\[x\\]\\(https\\://evil.example/p.png\\)");
  });

  it("keeps bare URLs from becoming autolinks", () => {
    expect(escapeInline("see https://evil.example and www.evil.example")).toBe("see https\\://evil.example and www\\.evil.example");
  });

  it("escapes emphasis, code, pipes and entities", () => {
    expect(escapeInline("a*b*_c_`d`|e&lt;")).toBe("a\\*b\\*\\_c\\_\\`d\\`\\|e&amp;lt;");
  });

  it("cannot start a block: newlines flatten, leading markers are escaped", () => {
    expect(escapeInline("title\n# Heading\n\n- item")).toBe("title \\# Heading - item");
    expect(escapeInline("- item")).toBe("\\- item");
    expect(escapeInline("1. first")).toBe("1\\. first");
    expect(escapeInline("> quote")).toBe("&gt; quote");
  });

  it("drops terminal escapes and bidi overrides", () => {
    expect(escapeInline("ok\u001b[31mred\u202e\u0007")).toBe("ok\\[31mred");
  });
});

describe("inlineCode", () => {
  it("uses a fence longer than any backtick run", () => {
    expect(inlineCode("src/a.ts")).toBe("`src/a.ts`");
    expect(inlineCode("a``b")).toBe("```a``b```");
    expect(inlineCode("`x`")).toBe("`` `x` ``");
  });

  it("flattens newlines and handles empty text", () => {
    expect(inlineCode("a\nb")).toBe("`a b`");
    expect(inlineCode("")).toBe("");
  });
});

describe("codeBlock", () => {
  it("keeps a hostile ``` line inside the block", () => {
    const lines = codeBlock("x = 1\n```\n<script>alert(1)</script>\n````md\n", "python");
    expect(lines[0]).toBe("`````python");
    expect(lines.at(-1)).toBe("`````");
    expect(lines.slice(1, -1)).toEqual(["x = 1", "```", "<script>alert(1)</script>", "````md"]);
  });

  it("uses three backticks for plain code and refuses odd language hints", () => {
    expect(codeBlock("a\r\nb", "js onload=x")).toEqual(["```", "a", "b", "```"]);
  });

  it("shows bidi controls instead of letting them reorder the code", () => {
    expect(codeBlock("if (isAdmin\u202e) {", "c")[1]).toBe("if (isAdmin<U+202E>) {");
  });
});

describe("languageFromPath", () => {
  it.each([
    ["src/app.ts", "typescript"],
    ["lib/x.PY", "python"],
    ["a/b/Main.java", "java"],
    ["deploy/Dockerfile", "dockerfile"],
    ["native/x.hpp", "cpp"],
    ["README", ""],
    [".env", ""],
  ])("%s → %s", (path, lang) => expect(languageFromPath(path)).toBe(lang));
});

describe("table", () => {
  it("escapes pipes in text and in code cells, and newlines", () => {
    const lines = table(
      ["File", "Count"],
      [
        [{ md: inlineCode("a|b.ts") }, 3],
        ["x | y\nz", 1],
      ],
    );
    expect(lines).toEqual(["| File | Count |", "| --- | --- |", "| `a\\|b.ts` | 3 |", "| x \\| y z | 1 |"]);
  });
});

describe("link", () => {
  it("links only to http(s)", () => {
    expect(link("CWE-89", "https://cwe.mitre.org/data/definitions/89.html")).toBe(
      "[CWE-89](https://cwe.mitre.org/data/definitions/89.html)",
    );
    expect(link("x", "javascript:alert(1)")).toBe("x");
    expect(link("x", "not a url")).toBe("x");
    expect(link("x", "https://a.example/p)(q")).toBe("[x](https://a.example/p%29%28q)");
  });
});

it("escapeParagraphs keeps lines and escapes each", () => {
  expect(escapeParagraphs("Use `prepared` statements.\n\n<b>never</b> concatenate")).toEqual([
    "Use \\`prepared\\` statements.",
    "",
    "&lt;b&gt;never&lt;/b&gt; concatenate",
  ]);
});

it("clip marks the cut", () => {
  expect(clip("abcdef", 4)).toBe("abc…");
  expect(clip("abc", 4)).toBe("abc");
});
