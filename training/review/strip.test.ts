import type { NormalizedFinding } from "@ax/contracts";
import { factsOf } from "./example-of";
import { dedupKey, maskNames, maskPath, newIdent, stripLabels } from "./strip";

describe("stripLabels", () => {
  it("drops the suites' comments and markers", () => {
    const java = [
      "void run(String q) {",
      "  stmt.executeQuery(q); // Noncompliant {{Use a bound parameter.}}",
      "  /* FLAW: concatenated */ ps.setString(1, q); // Compliant",
      "  call(x); // NOSONAR",
      "}",
    ].join("\n");
    const out = stripLabels(java, "A.java");
    expect(out).toBe(["void run(String q) {", "  stmt.executeQuery(q);", "   ps.setString(1, q);", "  call(x);", "}"].join("\n"));
    const py = [
      "def f(cmd):",
      '    """Vulnerable: runs the command (ruleid: cmd-injection)."""',
      "    os.system(cmd)  # nosec B605",
      "    # ok: python.lang.x",
    ].join("\n");
    expect(stripLabels(py, "f.py")).toBe(["def f(cmd):", "    os.system(cmd)"].join("\n"));
    expect(stripLabels('<%-- BAD: reflected --%>\n<%= request.getParameter("q") %>\n<!-- GOOD -->', "x.jsp")).toBe(
      '<%= request.getParameter("q") %>',
    );
    // Markers left in code text are removed too.
    expect(stripLabels('log("NOSONAR nosec Noncompliant ruleid: r1 done")', "a.js")).toBe('log("    done")');
  });

  it("masks names that carry a verdict, consistently, and keeps library names", () => {
    const ident = newIdent();
    const code = ["def unsafe_query(badInput):", "    data = yaml.safe_load(badInput)", "    return mark_safe(unsafe_query(data))"].join(
      "\n",
    );
    expect(stripLabels(code, "v.py", ident)).toBe(
      ["def ident1(ident2):", "    data = yaml.safe_load(ident2)", "    return mark_safe(ident1(data))"].join("\n"),
    );
    // The same map goes on: the snippet or a trace label of the same example names the same token.
    expect(maskNames("passed to `unsafe_query` (parameter 1)", ident)).toBe("passed to `ident1` (parameter 1)");
    expect(maskNames("goodG2BSink vulnSink isCompliant", ident)).toBe("ident3 ident4 ident5");
    expect(maskNames(`res.set("Content-Security-Policy", "script-src 'unsafe-inline'")`, newIdent())).toContain("'unsafe-inline'");
    expect(maskNames("{{ body|safe }}", newIdent())).toBe("{{ body|safe }}");
    expect(maskNames("catch (BadPaddingException e)", newIdent())).toBe("catch (BadPaddingException e)");
    expect(maskNames("x = 0xbad", newIdent())).toBe("x = 0xbad");
  });

  it("masks the label words of a path", () => {
    expect(maskPath("sonarjs/rules/S1523/unit-test-cases/valid_001.js")).toBe("sonarjs/rules/S1523/unit-test-cases/x_001.js");
    expect(maskPath("bandit/examples/mark_safe_secure.py")).toBe("bandit/examples/mark_x_x.py");
    expect(maskPath("python/sql_flask_search_vuln.py")).toBe("python/sql_flask_search_x.py");
    expect(maskPath("CWE89_SQL_Injection__connect_tcp_81_goodG2B.java")).toBe("CWE89_SQL_Injection__connect_tcp_81_xG2B.java");
  });
});

describe("dedupKey", () => {
  it("is the same for code that differs only in whitespace and comments, and differs by CWE", () => {
    const a = { code: "f(a, b);\n// why\nreturn a;", cwe_id: "CWE-89", file: "A.java" };
    const b = { code: "f(a,b); /* c */ return  a;", cwe_id: "CWE-89", file: "B.java" };
    expect(dedupKey(a)).toBe(dedupKey(b));
    expect(dedupKey({ ...a, cwe_id: "CWE-78" })).not.toBe(dedupKey(a));
    expect(dedupKey({ ...a, code: "f(a, c); return a;" })).not.toBe(dedupKey(a));
  });
});

describe("factsOf", () => {
  it("keeps the FindingFacts fields only, with trace steps of kind, label and file, label words removed", () => {
    const f = {
      analyzer: "ax-dataflow",
      rule_id: "py-sqli",
      title: "SQL injection",
      message: "m",
      cwe_id: "CWE-89",
      file: "app/unsafe_views.py",
      start_line: 7,
      end_line: 7,
      snippet: "cur.execute(q)  # Noncompliant",
      confidence: "HIGH",
      fingerprint: "fp",
      raw: { secret: true },
      dataflow: {
        status: "confirmed",
        source_kind: "remote",
        trace: [
          {
            file: "app/unsafe_views.py",
            line: 3,
            column: 1,
            kind: "source",
            label: "HTTP request parameter",
            code: "q = request.args['q']",
          },
          { file: "app/unsafe_views.py", line: 7, column: 5, kind: "sink", label: "passed to `vuln_exec`", code: "cur.execute(q)" },
        ],
      },
    } as unknown as NormalizedFinding;
    expect(factsOf(f)).toEqual({
      analyzer: "ax-dataflow",
      rule_id: "py-sqli",
      cwe_id: "CWE-89",
      file: "app/x_views.py",
      start_line: 7,
      end_line: 7,
      snippet: "cur.execute(q)",
      confidence: "HIGH",
      dataflow: {
        status: "confirmed",
        reason: null,
        source_kind: "remote",
        trace: [
          { kind: "source", label: "HTTP request parameter", file: "app/x_views.py" },
          { kind: "sink", label: "passed to `ident1`", file: "app/x_views.py" },
        ],
      },
    });
  });
});

describe("stripLabels on Python strings", () => {
  it("keeps a triple-quoted query that is an argument, drops a docstring", () => {
    const code = ["def f(q):", "    '''Safe: bound.'''", "    cur.execute(", '        """SELECT * FROM t WHERE id = %s""", (q,))'].join(
      "\n",
    );
    expect(stripLabels(code, "f.py")).toBe(
      ["def f(q):", "    cur.execute(", '        """SELECT * FROM t WHERE id = %s""", (q,))'].join("\n"),
    );
  });
});
