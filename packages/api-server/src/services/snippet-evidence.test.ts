/**
 * The evidence of a bare snippet, from the real taint analysis: concatenated queries reading
 * a request parameter are confirmed, parameterized ones are not; languages the analysis does
 * not read, code that does not parse and a spent time limit give no dataflow or no evidence.
 */
import { describe, expect, it } from "@jest/globals";
import type { ReviewBody } from "@ax/contracts";
import { QUERY_PAIRS } from "../test-fixtures/query-pairs";
import { snippetEvidence, snippetFacts } from "./snippet-evidence";

const body = (b: Partial<ReviewBody> & { code: string }): ReviewBody => b as ReviewBody;

describe("snippet evidence: parameterized vs concatenated queries", () => {
  it.each(QUERY_PAIRS.map((p) => [p.name, p] as const))("%s", async (_name, pair) => {
    const facts = await snippetFacts(body({ code: pair.code, file: pair.file, cwe_id: pair.cwe_id, line: String(pair.line) }));
    expect(facts?.dataflow).not.toBeNull();
    expect(facts!.start_line).toBe(pair.line);
    if (pair.vulnerable) {
      expect(facts!.dataflow!.status).toBe("confirmed");
      expect(facts!.dataflow!.source_kind).toBe("remote");
      expect(facts!.dataflow!.trace!.at(-1)).toMatchObject({ kind: "sink", file: pair.file });
    } else expect(facts!.dataflow!.status).not.toBe("confirmed");
    const evidence = await snippetEvidence(body({ code: pair.code, file: pair.file, cwe_id: pair.cwe_id, line: String(pair.line) }));
    expect(evidence).toMatchObject({ language: pair.language, dataflow: pair.vulnerable ? "confirmed" : "refuted", kind: "route" });
  });

  it("covers each language with at least two pairs", () => {
    for (const language of ["java", "python", "javascript"]) {
      const of = QUERY_PAIRS.filter((p) => p.language === language);
      expect(of.filter((p) => p.vulnerable).length).toBeGreaterThanOrEqual(2);
      expect(of.filter((p) => !p.vulnerable).length).toBeGreaterThanOrEqual(2);
    }
  });

  it("guesses the language when no file is given, and names the snippet by it", async () => {
    for (const pair of QUERY_PAIRS) {
      const evidence = await snippetEvidence(body({ code: pair.code, cwe_id: pair.cwe_id }));
      expect([pair.name, evidence?.language, evidence?.dataflow]).toEqual([
        pair.name,
        pair.language,
        pair.vulnerable ? "confirmed" : "refuted",
      ]);
    }
  });
});

describe("snippet evidence: Java fragments", () => {
  const statements = [
    'String id = request.getParameter("id");',
    "Statement st = connection.createStatement();",
    'ResultSet rs = st.executeQuery("SELECT name FROM accounts WHERE id = " + id);',
  ].join("\n");

  it("wraps statements in a method of a class and keeps their lines", async () => {
    const facts = await snippetFacts(body({ code: statements, file: "AccountDao.java", cwe_id: "CWE-89" }));
    expect(facts).toMatchObject({ analyzer: "dataflow", rule_id: "java-taint-sql", start_line: 3, dataflow: { status: "confirmed" } });
    expect(facts!.snippet).toBe('ResultSet rs = st.executeQuery("SELECT name FROM accounts WHERE id = " + id);');
    expect(JSON.stringify(facts!.dataflow!.trace)).not.toMatch(/class Snippet/);
  });

  it("picks the sink nearest the line among several of the family", async () => {
    const code = [
      "void report(HttpServletRequest request) throws Exception {",
      '    String day = request.getParameter("day");',
      '    stmt.executeQuery("SELECT count(*) FROM visits");',
      '    stmt.executeQuery("SELECT * FROM visits WHERE day = \'" + day + "\'");',
      "}",
    ].join("\n");
    const at = (line: string) => snippetFacts(body({ code, file: "Report.java", cwe_id: "CWE-89", line }));
    expect(await at("3")).toMatchObject({ start_line: 3, dataflow: { status: "refuted" } });
    expect(await at("4")).toMatchObject({ start_line: 4, dataflow: { status: "confirmed" } });
    // A line outside the snippet (the file's numbering) is ignored: a trace wins.
    expect(await at("120")).toMatchObject({ start_line: 4, dataflow: { status: "confirmed" } });
  });
});

describe("snippet evidence: what the analysis does not read", () => {
  it("gives no dataflow for a language it does not read", async () => {
    const go =
      'func handler(w http.ResponseWriter, r *http.Request) {\n\tdb.Query("SELECT * FROM t WHERE id = " + r.URL.Query().Get("id"))\n}';
    for (const file of ["main.go", undefined]) {
      const facts = await snippetFacts(body({ code: go, file, cwe_id: "CWE-89", line: "2" }));
      expect(facts).toMatchObject({ analyzer: "review", rule_id: "snippet", dataflow: null, snippet: expect.stringContaining("db.Query") });
      expect((await snippetEvidence(body({ code: go, file, cwe_id: "CWE-89" })))?.dataflow).toBe("not-modelled");
    }
  });

  it("gives no dataflow for a weakness the analysis has no sink for", async () => {
    const pair = QUERY_PAIRS[0]!;
    expect((await snippetFacts(body({ code: pair.code, file: pair.file, cwe_id: "CWE-798" })))?.dataflow).toBeNull();
  });

  it("does not throw on code that does not parse, and confirms nothing", async () => {
    for (const [file, code] of [
      ["Broken.java", 'public void f( { {{ "executeQuery(' + "\n}}}} class"],
      ["broken.py", "def f(:\n    cursor.execute('x' + \n  request.args[\n"],
      ["broken.js", "app.get('/', (req, res => { db.query('x' + req.query.a"],
    ] as const) {
      const facts = await snippetFacts(body({ code, file, cwe_id: "CWE-89", line: "1" }));
      expect(facts?.dataflow?.status).not.toBe("confirmed");
      expect(facts).not.toBeNull();
      expect(await snippetEvidence(body({ code, file, cwe_id: "CWE-89" }))).not.toBeNull();
    }
    expect((await snippetFacts(body({ code: "public void f( { {{", file: "Broken.java", cwe_id: "CWE-89" })))?.dataflow?.reason).toMatch(
      /could not read/,
    );
  });

  it("gives no evidence when the time limit is spent or the request is gone", async () => {
    const pair = QUERY_PAIRS[0]!;
    const input = body({ code: pair.code, file: pair.file, cwe_id: pair.cwe_id });
    expect(await snippetEvidence(input, { timeLimitMs: 0 })).toBeNull();
    expect(await snippetEvidence(input, { signal: AbortSignal.abort() })).toBeNull();
    expect((await snippetEvidence(input))?.dataflow).toBe("confirmed");
  });

  it("ends an analysis stuck past its time limit without holding the caller's thread", async () => {
    // Parsing and lowering this takes seconds, where the engine cannot check its limit.
    const hostile = body({ code: "public " + "a ".repeat(32 * 1024 - 8), file: "Hostile.java", cwe_id: "CWE-89" });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    try {
      expect(await snippetEvidence(hostile, { timeLimitMs: 200 })).toBeNull();
    } finally {
      clearInterval(ticker);
    }
    expect(ticks).toBeGreaterThan(0);
    // The evidence's code shapes are linear in the code: hostile input for a backtracking
    // pattern comes back well within the limit (it was seconds before evidence.ts read by lines).
    const shapes = body({ code: '"' + "a?".repeat(32 * 1024 - 8), file: "Shapes.java", cwe_id: "CWE-89" });
    expect((await snippetEvidence(shapes, { timeLimitMs: 2000 }))?.boundParameter).toBe(false);
    // The thread was replaced: the next snippet is analysed.
    const pair = QUERY_PAIRS[0]!;
    expect((await snippetEvidence(body({ code: pair.code, file: pair.file, cwe_id: pair.cwe_id })))?.dataflow).toBe("confirmed");
  }, 20_000);
});
