// The comment finder over real source text in many languages, and what its markers decide for
// a finding. No fakes: the parsers are the real tree-sitter grammars, the text is real code,
// and the end-to-end case scans a real git repository with the real analyzers.
import type { NormalizedFinding } from "@ax/contracts";
import { makeGitRepo } from "@ax/testkit";
import { findComments } from "./comments";
import { maskYamlBlockScalars } from "./comments/syntaxes";
import { runAnalyzers } from "./run";
import { findSuppression, markersOf, type Marker } from "./suppressions";

/** [line, reason] of every marker, with "alone" marked by a trailing "*" on the line. */
function seen(path: string, text: string): [string, string | null][] {
  return markersOf(path, text)
    .sort((a, b) => a.line - b.line)
    .map((m) => [`${m.line}${m.alone ? "*" : ""}`, m.reason]);
}

/** The comment texts the parser finds, and the ones the lexer finds: they must agree. */
function bothWays(path: string, text: string) {
  const texts = (spans: { start: number; end: number }[]) => spans.map((s) => text.slice(s.start, s.end)).sort();
  return { tree: texts(findComments(path, text, "ax-ignore")), lexer: texts(findComments(path, text, "ax-ignore", "lexer")) };
}

describe("ax-ignore markers are found only in comments of the file's language", () => {
  it("JavaScript: not in strings, template literals or regular expressions; in template code, yes", () => {
    const js = [
      'const a = "// ax-ignore: in a double-quoted string";',
      "const b = 'ax-ignore: in a single-quoted string'; const c = \"/* ax-ignore: x */\";",
      "const t = `first line",
      "// ax-ignore: inside a template literal",
      "${x /* ax-ignore: in the template's code */}`;",
      "const r = /\\/\\/ ax-ignore: a regex/; const d = a / 2; // ax-ignore: after a division",
      "eval(x); // ax-ignore: trailing",
      "   // ax-ignore: alone",
      "/* ax-ignore[CWE-95]: block */ eval(y);",
      "/**",
      " * ax-ignore: in a doc comment's middle line",
      " */",
    ].join("\n");
    const expected = [
      ["5", "in the template's code"],
      ["6", "after a division"],
      ["7", "trailing"],
      ["8*", "alone"],
      ["9", "block"],
      ["11*", "in a doc comment's middle line"],
    ];
    expect(seen("src/app.js", js)).toEqual(expected);
    // The lexer (used when the parser fails) agrees with the syntax tree.
    const { tree, lexer } = bothWays("src/app.js", js);
    expect(lexer).toEqual(tree);
    expect(tree).toHaveLength(6);
  });

  it("TypeScript and TSX: JSX text is not a comment, a JSX expression comment is", () => {
    const ts = "function f<T>(x: T): string { return `${x}` + '// ax-ignore: no'; } // ax-ignore: typed\n";
    expect(seen("a.ts", ts)).toEqual([["1", "typed"]]);
    const tsx = 'const e = <p title="// ax-ignore: attr">// ax-ignore: text</p>;\nconst g = <div>{/* ax-ignore: jsx */}</div>;\n';
    expect(seen("a.tsx", tsx)).toEqual([["2", "jsx"]]);
  });

  it("Python: not in strings, f-strings, triple-quoted strings or docstrings", () => {
    const py = [
      "s = 'ax-ignore: single'",
      'd = "# ax-ignore: double"',
      'f = f"{x} # ax-ignore: f-string"',
      'doc = """',
      "# ax-ignore: inside a triple-quoted string",
      '"""',
      '"""ax-ignore: a docstring alone on its line"""',
      "eval(x)  # ax-ignore: trailing",
      "# ax-ignore[bandit.B307, CWE-95]: alone",
      "r = r'\\'' # ax-ignore: after a raw string with an escaped quote",
    ].join("\n");
    expect(seen("m.py", py)).toEqual([
      ["8", "trailing"],
      ["9*", "alone"],
      ["10", "after a raw string with an escaped quote"],
    ]);
    const { tree, lexer } = bothWays("m.py", py);
    expect(lexer).toEqual(tree);
    expect(markersOf("m.py", py).find((m) => m.line === 9)?.scope).toEqual(["bandit.B307", "CWE-95"]);
  });

  it("Java: not in strings, text blocks or after a quote character literal", () => {
    const java = [
      "class A {",
      '  String s = "// ax-ignore: string";',
      '  String b = """',
      "    /* ax-ignore: text block */",
      '    """;',
      "  char q = '\"'; // ax-ignore: after a char literal",
      "  /* ax-ignore: block alone */",
      "}",
    ].join("\n");
    expect(seen("A.java", java)).toEqual([
      ["6", "after a char literal"],
      ["7*", "block alone"],
    ]);
    const { tree, lexer } = bothWays("A.java", java);
    expect(lexer).toEqual(tree);
  });

  it("C and C++: strings, char literals, raw strings and digit separators", () => {
    const c = [
      'printf("/* ax-ignore: no */ // ax-ignore: no");',
      "char q = '\"'; // ax-ignore: after a quote char",
      "auto r = R\"x( // ax-ignore: raw )x\"; int n = 1'000'000; // ax-ignore: after digit separators",
    ].join("\n");
    expect(seen("x.cpp", c)).toEqual([
      ["2", "after a quote char"],
      ["3", "after digit separators"],
    ]);
  });

  it("Go, C#, Kotlin and Rust: raw, verbatim and interpolated strings, lifetimes", () => {
    expect(seen("m.go", "s := `\n// ax-ignore: raw string\n` // ax-ignore: go\n")).toEqual([["3", "go"]]);
    expect(seen("P.cs", 'var p = @"C:\\dir\\"" // ax-ignore: no"; var i = $"{a} // ax-ignore: no"; // ax-ignore: cs\n')).toEqual([
      ["1", "cs"],
    ]);
    expect(
      seen("K.kt", 'val s = """\n// ax-ignore: raw\n${x}""" // ax-ignore: kotlin\n/* a /* nested */ ax-ignore: still in the comment */\n'),
    ).toEqual([
      ["3", "kotlin"],
      ["4*", "still in the comment"],
    ]);
    expect(seen("l.rs", "fn f<'a>(x: &'a str) -> &'a str { let r = r#\"// ax-ignore: raw\"#; x } // ax-ignore: rust\n")).toEqual([
      ["1", "rust"],
    ]);
  });

  it("shell: quotes, ${#x}, words with #, and heredoc bodies", () => {
    const sh = [
      "#!/bin/sh",
      "echo \"# ax-ignore: double\" '# ax-ignore: single' a#ax-ignore",
      "echo ${#arr} # ax-ignore: after a length",
      "cat <<EOF",
      "# ax-ignore: heredoc body",
      "EOF",
      "cat <<-'END' # ax-ignore: on the heredoc's line",
      "\t# ax-ignore: quoted heredoc body",
      "\tEND",
      "# ax-ignore: after the heredocs",
    ].join("\n");
    expect(seen("deploy/run.sh", sh)).toEqual([
      ["3", "after a length"],
      ["7", "on the heredoc's line"],
      ["10*", "after the heredocs"],
    ]);
    // The same file without an extension is read as shell through its shebang.
    expect(seen("deploy/run", sh)).toEqual(seen("deploy/run.sh", sh));
  });

  it("YAML: quoted scalars, # inside a word, block scalars", () => {
    const yaml = [
      'a: "x # ax-ignore: quoted"',
      "b: it's # ax-ignore: after an apostrophe",
      "c: http://h/#ax-ignore",
      "run: |",
      "  echo hi",
      "  # ax-ignore: block scalar content",
      "d: 1 # ax-ignore: after the block",
    ].join("\n");
    expect(seen("ci.yml", yaml)).toEqual([
      ["2", "after an apostrophe"],
      ["7", "after the block"],
    ]);
    expect(maskYamlBlockScalars(yaml).split("\n")[5]).toMatch(/^ +$/);
  });

  it("Dockerfile, SQL, Ruby and .env files", () => {
    expect(seen("Dockerfile", "RUN echo hi # ax-ignore: shell text\n# ax-ignore: docker\nRUN <<EOF\n# ax-ignore: heredoc\nEOF\n")).toEqual([
      ["2*", "docker"],
    ]);
    expect(seen("q.sql", "SELECT '-- ax-ignore: no', \"x -- ax-ignore: no\" -- ax-ignore: sql\n")).toEqual([["1", "sql"]]);
    expect(
      seen(
        "a.rb",
        'x = "#{y} # ax-ignore: no" # ax-ignore: ruby\ns = <<~SQL\n  # ax-ignore: heredoc\nSQL\n=begin\nax-ignore: in =begin\n=end\n',
      ),
    ).toEqual([
      ["1", "ruby"],
      ["6*", "in =begin"],
    ]);
    expect(seen("config/.env", 'KEY="x # ax-ignore: no" # ax-ignore: env\n')).toEqual([["1", "env"]]);
  });

  it("PHP and markup: HTML text, attributes, JSP scriptlets, script elements", () => {
    const php = [
      "<p>// ax-ignore: html text</p><!-- ax-ignore: html comment -->",
      '<?php echo "# ax-ignore: no ?>"; // ax-ignore: php ?> <p># ax-ignore: text</p>',
      "<?php #[Attr] function f() {} # ax-ignore: hash",
      "$s = <<<EOT",
      "  // ax-ignore: heredoc",
      "  EOT;",
    ].join("\n");
    expect(seen("index.php", php)).toEqual([
      ["1", "html comment"],
      ["2", "php"],
      ["3", "hash"],
    ]);
    const jsp = [
      '<a title="<!-- ax-ignore: attribute -->">x</a>',
      "<%-- ax-ignore: jsp comment --%>",
      '<% String s = "// ax-ignore: no"; // ax-ignore: scriptlet %>',
      '<script>var s = "<!-- ax-ignore: no -->"; // ax-ignore: script</script>',
    ].join("\n");
    expect(seen("page.jsp", jsp)).toEqual([
      ["2*", "jsp comment"],
      ["3", "scriptlet"],
      ["4", "script"],
    ]);
  });

  it("a file that never says ax-ignore is not parsed, and a broken file still yields its comments", () => {
    expect(markersOf("a.py", "eval(x)  # nothing here\n")).toEqual([]);
    expect(seen("b.py", "def f(:\n    eval(x)  # ax-ignore: still a comment\n")).toEqual([["2", "still a comment"]]);
  });
});

function finding(over: Partial<NormalizedFinding> = {}): NormalizedFinding {
  return {
    analyzer: "ast-grep",
    rule_id: "py-pickle",
    title: "t",
    message: "m",
    cwe_id: "CWE-502",
    cwe_name: null,
    owasp: null,
    file: "app.py",
    start_line: 3,
    end_line: 3,
    start_column: 1,
    end_column: 5,
    snippet: "x",
    severity: "HIGH",
    confidence: "HIGH",
    likelihood: null,
    impact: null,
    remediation: null,
    fingerprint: "",
    raw: null,
    ...over,
  };
}
const merged = (over: Partial<NormalizedFinding> = {}) =>
  finding({
    sources: [
      { analyzer: "ast-grep", rule_id: "py-pickle" },
      { analyzer: "dataflow", rule_id: "py-taint-deserialization" },
      { analyzer: "bandit", rule_id: "bandit.B301" },
    ],
    ...over,
  });
const decide = (text: string, f: NormalizedFinding) => findSuppression(markersOf("app.py", text), f);

describe("findSuppression", () => {
  it("a trailing comment covers its own line only; a comment alone on the line above covers the next", () => {
    expect(decide("a = 1\nb()  # ax-ignore: for b, not for the next line\npickle.loads(x)\n", finding()).suppression).toBeNull();
    expect(decide("a = 1\n# ax-ignore: alone above\npickle.loads(x)\n", finding()).suppression).toEqual({
      kind: "inline",
      reason: "alone above",
      line: 2,
    });
    expect(decide("a = 1\n\npickle.loads(x)  # ax-ignore: trailing\n", finding()).suppression).toEqual({
      kind: "inline",
      reason: "trailing",
      line: 3,
    });
    expect(decide("# ax-ignore: two lines up\n\npickle.loads(x)\n", finding()).suppression).toBeNull();
  });

  it("a string that reads like a marker suppresses nothing", () => {
    const d = decide("a = 1\ns = '# ax-ignore: a string'\npickle.loads(x); t = 'ax-ignore: another'\n", finding());
    expect(d).toEqual({ sources: [{ analyzer: "ast-grep", rule_id: "py-pickle" }], suppression: null, ignored: null });
  });

  it("a rule-scoped comment covers its rule only: a merged finding stays reported until every source is covered", () => {
    const partial = decide("a = 1\n# ax-ignore[bandit.B301]: signed blobs only\npickle.loads(x)\n", merged());
    expect(partial.suppression).toBeNull();
    expect(partial.ignored).toBeNull();
    expect(partial.sources).toEqual([
      { analyzer: "ast-grep", rule_id: "py-pickle" },
      { analyzer: "dataflow", rule_id: "py-taint-deserialization" },
      { analyzer: "bandit", rule_id: "bandit.B301", inline: { line: 2, reason: "signed blobs only" } },
    ]);
    // Every rule named: suppressed, with the lead rule's reason.
    const all = decide(
      "# ax-ignore[bandit.B301]: signed\n# ax-ignore[py-pickle, py-taint-deserialization]: signed too\npickle.loads(x)\n",
      merged(),
    );
    expect(all.suppression).toBeNull(); // the first comment is not on the line above
    const both = decide(
      "a = 1\n# ax-ignore[py-pickle, py-taint-deserialization]: signed too\npickle.loads(x)  # ax-ignore[bandit.B301]: signed\n",
      merged(),
    );
    expect(both.suppression).toEqual({ kind: "inline", reason: "signed too", line: 2 });
    // A CWE id, or no scope, names every rule of the finding.
    expect(decide("a = 1\npickle.loads(x)  # ax-ignore[CWE-502]: signed\n", merged({ start_line: 2 })).suppression).toMatchObject({
      reason: "signed",
    });
    expect(decide("a = 1\npickle.loads(x)  # ax-ignore: signed\n", merged({ start_line: 2 })).suppression).toMatchObject({
      reason: "signed",
    });
  });

  it("a comment without a reason is recorded on the sources it names, not honoured", () => {
    const d = decide("a = 1\npickle.loads(x)  # ax-ignore\n", merged({ start_line: 2 }));
    expect(d.suppression).toBeNull();
    expect(d.ignored).toMatch(/without a reason is not honoured/);
    expect(d.sources.map((s) => s.inline)).toEqual([
      { line: 2, reason: null },
      { line: 2, reason: null },
      { line: 2, reason: null },
    ]);
    // A comment with a reason wins over a bare one.
    expect(decide("# ax-ignore\npickle.loads(x)  # ax-ignore: given\n", finding({ start_line: 2 })).suppression).toMatchObject({
      reason: "given",
    });
  });

  it("strips the closers of block comments from the reason", () => {
    const reasons = (path: string, text: string) => markersOf(path, text).map((m: Marker) => m.reason);
    expect(reasons("a.js", "x(); /* ax-ignore: js */\n")).toEqual(["js"]);
    expect(reasons("a.html", "<!-- ax-ignore: html -->\n")).toEqual(["html"]);
    expect(reasons("a.jsp", "<%-- ax-ignore: jsp --%>\n")).toEqual(["jsp"]);
    expect(reasons("a.ps1", "<# ax-ignore: ps #>\n")).toEqual(["ps"]);
  });
});

describe("through the real scanner (git repository, ast-grep, taint analysis, bandit)", () => {
  const APP_PY = [
    "import pickle",
    "from flask import request",
    "",
    "",
    "def merged():",
    "    # ax-ignore[bandit.B301]: only signed blobs reach here",
    "    return pickle.loads(request.data)",
    "",
    "",
    "def in_string(b):",
    '    note = "# ax-ignore: a string, not a comment"; return pickle.loads(b)',
    "",
    "",
    "def after_another_statement(b):",
    '    note = "x"  # ax-ignore: this covers the assignment only',
    "    return pickle.loads(b)",
    "",
    "",
    "def alone_above(b):",
    "    # ax-ignore: our own cache format",
    "    return pickle.loads(b)",
    "",
    "",
    "def bare(b):",
    "    return pickle.loads(b)  # ax-ignore",
    "",
  ].join("\n");
  const APP_JS = [
    "const s = `// ax-ignore: in a template literal`; module.exports.a = (x) => eval(x + s);",
    "module.exports.b = (req) => eval(req.query.code); // ax-ignore: sandboxed by the caller",
    "",
  ].join("\n");

  it("suppresses for comments only, and keeps a merged finding reported when one rule is named", async () => {
    const dir = makeGitRepo({ "app.py": APP_PY, "app.js": APP_JS });
    const result = await runAnalyzers({ dir, timeoutMs: 60_000, maxOutputBytes: 1 << 24 });
    expect(result.analyzers.filter((a) => ["ast-grep", "dataflow", "bandit"].includes(a.name)).map((a) => a.status)).toEqual([
      "completed",
      "completed",
      "completed",
    ]);
    const at = (file: string, line: number) => {
      const f = result.findings.find((x) => x.file === file && x.start_line === line && x.cwe_id !== null && x.cwe_id !== "CWE-798");
      if (!f) throw new Error(`no finding at ${file}:${line}`);
      return f;
    };

    // 3: the dataflow-confirmed pickle finding merged with bandit's; the comment names bandit only.
    const merged = at("app.py", 7);
    expect(merged.sources!.map((s) => s.analyzer).sort()).toEqual(["ast-grep", "bandit", "dataflow"]);
    expect(merged.suppression).toBeUndefined();
    expect(merged.sources!.find((s) => s.analyzer === "bandit")!.inline).toEqual({ line: 6, reason: "only signed blobs reach here" });
    expect(merged.sources!.filter((s) => s.inline)).toHaveLength(1);
    // 1: a string literal is no comment; 2: another statement's trailing comment covers that statement.
    for (const line of [11, 16]) {
      expect(at("app.py", line).suppression).toBeUndefined();
      expect(at("app.py", line).sources!.some((s) => s.inline)).toBe(false);
    }
    expect(at("app.js", 1).suppression).toBeUndefined();
    // A comment alone on the line above, and a trailing one on the finding's line, suppress.
    expect(at("app.py", 21).suppression).toEqual({ kind: "inline", reason: "our own cache format", line: 20 });
    expect(at("app.js", 2).suppression).toEqual({ kind: "inline", reason: "sandboxed by the caller", line: 2 });
    // 4: a bare marker is recorded on the sources (what the API presents) and in the raw record.
    const bare = at("app.py", 25);
    expect(bare.suppression).toBeUndefined();
    expect(bare.sources!.every((s) => s.inline?.line === 25 && s.inline.reason === null)).toBe(true);
    expect(bare.raw).toMatchObject({ suppression_ignored: expect.stringMatching(/without a reason/) });
    expect(result.selection.suppressed).toBe(2);
  });
});
