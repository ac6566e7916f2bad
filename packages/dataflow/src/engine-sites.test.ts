/**
 * Sink sites (sites.ts): the places the analysis judged with no tainted path, which let the
 * scanner refute a pattern finding. A site is clean only when the analysis saw every way data
 * reaches it: constants, sanitized values, or a helper whose every caller in the repository
 * passes nothing untrusted. A parameter of a function nothing calls, or an argument the
 * lowering could not read, leaves it open. A tainted sink is a trace, never a site.
 */
import { analyzeProgram, type ProgramAnalysis } from "./engine";
import { LOWERERS, SPECS } from "./languages";
import { engineMemo } from "./memo";
import { dedent } from "../test/java-twins";
import type { SinkSite } from "./sites";

type Files = Record<string, string>;

function lower(files: Files) {
  const texts = new Map(Object.entries(files).map(([f, s]) => [f, dedent(s)]));
  const modules = [...texts].map(([file, text]) => {
    const language = file.endsWith(".java") ? "java" : file.endsWith(".py") ? "python" : "javascript";
    return LOWERERS.get(language)!(file, text);
  });
  const split = new Map([...texts].map(([f, t]) => [f, t.split("\n")]));
  return { modules, lines: (f: string) => split.get(f) ?? [] };
}

function analyze(files: Files | ReturnType<typeof lower>, opts: { everyRound?: boolean; memo?: ReturnType<typeof engineMemo> } = {}) {
  const { modules, lines } =
    "modules" in files && Array.isArray(files.modules) ? (files as ReturnType<typeof lower>) : lower(files as Files);
  return analyzeProgram(modules, { specs: SPECS, lines, ...opts });
}

/** The line of the only line holding `// SINK` or `# SINK` in a dedented source. */
function sinkLine(source: string): number {
  const i = dedent(source)
    .split("\n")
    .findIndex((l) => /(#|\/\/) SINK/.test(l));
  if (i < 0) throw new Error("no SINK marker");
  return i + 1;
}

function siteAt(a: ProgramAnalysis, file: string, line: number): SinkSite[] {
  return a.sites.filter((s) => s.file === file && s.start_line <= line && s.end_line >= line);
}

const servlet = (body: string, extra = "") => `
  import java.sql.*;
  import javax.servlet.http.*;
  public class Users extends HttpServlet {
    private Connection conn;
    public void doGet(HttpServletRequest request, HttpServletResponse response) throws Exception {
      Statement stmt = conn.createStatement();
${body
  .split("\n")
  .map((l) => "      " + l.trim())
  .join("\n")}
    }
${extra}
  }
`;

describe("sink sites: what the analysis judged clean", () => {
  it("a constant query is a clean site (constant), and no trace", () => {
    const src = servlet(`stmt.executeQuery("SELECT * FROM users"); // SINK`);
    const a = analyze({ "Users.java": src });
    expect(a.traces).toEqual([]);
    expect(siteAt(a, "Users.java", sinkLine(src))).toEqual([
      expect.objectContaining({ status: "clean", cwe_id: "CWE-89", reasons: ["constant"] }),
    ]);
  });

  it("a request parameter parsed as a number is clean for SQL; the raw parameter is a trace, not a site", () => {
    const safe = servlet(`
      int id = Integer.parseInt(request.getParameter("id"));
      stmt.executeQuery("SELECT * FROM users WHERE id = " + id); // SINK
    `);
    const a = analyze({ "Users.java": safe });
    expect(a.traces).toEqual([]);
    // Number parsing removes every fact (it cleans for all weaknesses): nothing untrusted is left.
    expect(siteAt(a, "Users.java", sinkLine(safe))).toEqual([expect.objectContaining({ status: "clean", reasons: ["untainted"] })]);
    const vuln = servlet(`
      String id = request.getParameter("id");
      stmt.executeQuery("SELECT * FROM users WHERE id = " + id); // SINK
    `);
    const b = analyze({ "Users.java": vuln });
    expect(b.traces.map((t) => [t.start_line, t.cwe_id])).toEqual([[sinkLine(vuln), "CWE-89"]]);
    expect(siteAt(b, "Users.java", sinkLine(vuln))).toEqual([]);
  });

  it("a helper whose only caller passes a constant is clean (callers); with a tainted caller it is a trace", () => {
    const helper = `
    private void find(Statement stmt, String name) throws Exception {
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
    }`;
    const safe = servlet(`find(stmt, "guest");`, helper);
    const a = analyze({ "Users.java": safe });
    expect(a.traces).toEqual([]);
    expect(siteAt(a, "Users.java", sinkLine(safe))).toEqual([expect.objectContaining({ status: "clean", reasons: ["callers"] })]);
    const vuln = servlet(`find(stmt, request.getParameter("name"));`, helper);
    const b = analyze({ "Users.java": vuln });
    expect(b.traces.map((t) => t.start_line)).toEqual([sinkLine(vuln)]);
    expect(siteAt(b, "Users.java", sinkLine(vuln))).toEqual([]);
  });

  it("a parameter of a method nothing in the repository calls leaves the site open", () => {
    const src = `
      import java.sql.*;
      public class Repo {
        private Connection conn;
        public void byName(String name) throws Exception {
          conn.createStatement().executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
        }
      }
    `;
    const a = analyze({ "Repo.java": src });
    expect(a.traces).toEqual([]);
    expect(siteAt(a, "Repo.java", sinkLine(src))).toEqual([expect.objectContaining({ status: "open", reasons: ["entry-parameter"] })]);
  });

  it("Python and JavaScript: a constant command is clean, a module function's parameter is open", () => {
    const py = `
      import os
      def cleanup():
          os.system("rm -rf /tmp/cache")  # SINK
      def run(cmd):
          os.system(cmd)
    `;
    const a = analyze({ "jobs.py": py });
    expect(siteAt(a, "jobs.py", sinkLine(py))).toEqual([expect.objectContaining({ status: "clean", reasons: ["constant"] })]);
    expect(siteAt(a, "jobs.py", sinkLine(py) + 2)).toEqual([expect.objectContaining({ status: "open" })]);
    const js = `
      const { exec } = require("child_process");
      function cleanup() {
        exec("rm -rf /tmp/cache"); // SINK
      }
      function run(cmd) {
        exec(cmd);
      }
      module.exports = { cleanup, run };
    `;
    const b = analyze({ "jobs.js": js });
    expect(siteAt(b, "jobs.js", sinkLine(js))).toEqual([expect.objectContaining({ status: "clean", reasons: ["constant"] })]);
    expect(siteAt(b, "jobs.js", sinkLine(js) + 3)).toEqual([expect.objectContaining({ status: "open" })]);
  });

  it("a name nothing in the analysed code defines (another file's global, a library's field) leaves the site open", () => {
    const py = `
      def report(cursor):
          cursor.execute("SELECT * FROM t WHERE name = '%s'" % value)  # SINK
    `;
    expect(siteAt(analyze({ "report.py": py }), "report.py", sinkLine(py))).toEqual([
      expect.objectContaining({ status: "open", reasons: ["entry-parameter"] }),
    ]);
    // Defined in the module: a constant, and the site is clean.
    const defined = `
      value = "guest"
      def report(cursor):
          cursor.execute("SELECT * FROM t WHERE name = '%s'" % value)  # SINK
    `;
    expect(siteAt(analyze({ "report.py": defined }), "report.py", sinkLine(defined))).toEqual([
      expect.objectContaining({ status: "clean" }),
    ]);
    const java = `
      import java.sql.*;
      public class Report extends LibraryBase {
        void run(Statement stmt) throws Exception {
          stmt.executeQuery("SELECT * FROM t WHERE name = '" + inheritedName + "'"); // SINK
        }
        void start(Statement stmt) throws Exception { run(stmt); }
      }
    `;
    expect(siteAt(analyze({ "Report.java": java }), "Report.java", sinkLine(java))).toEqual([expect.objectContaining({ status: "open" })]);
  });

  it("a parser configured safely before it parses untrusted input is a clean site (configured); unsafely, a trace", () => {
    const parse = (feature: string) =>
      servlet(`
        javax.xml.parsers.DocumentBuilderFactory factory = javax.xml.parsers.DocumentBuilderFactory.newInstance();
        ${feature}
        javax.xml.parsers.DocumentBuilder builder = factory.newDocumentBuilder();
        builder.parse(request.getInputStream()); // SINK
      `);
    const safe = parse(`factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);`);
    const a = analyze({ "Users.java": safe });
    expect(a.traces).toEqual([]);
    expect(siteAt(a, "Users.java", sinkLine(safe))).toEqual([
      expect.objectContaining({ status: "clean", cwe_id: "CWE-611", reasons: ["configured"] }),
    ]);
    const unsafe = parse(`factory.setNamespaceAware(true);`);
    const b = analyze({ "Users.java": unsafe });
    expect(b.traces.map((t) => [t.start_line, t.cwe_id])).toEqual([[sinkLine(unsafe), "CWE-611"]]);
  });

  it("gives the same sites with the worklist as with every function in every round, and from a memo's replay", () => {
    const files = {
      "Users.java": servlet(
        `find(stmt, "guest");\nstmt.executeQuery("SELECT 1");\nfind(stmt, String.valueOf(Integer.parseInt(request.getParameter("n"))));`,
        `
    private void find(Statement stmt, String name) throws Exception {
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'");
    }`,
      ),
    };
    const lowered = lower(files);
    const reference = analyze(lowered, { everyRound: true });
    expect(reference.sites.length).toBeGreaterThanOrEqual(2);
    expect(analyze(lowered).sites).toEqual(reference.sites);
    const memo = engineMemo();
    analyze(lowered, { memo });
    expect(analyze(lowered, { memo }).sites).toEqual(reference.sites);
    expect(memo.replayed).toBeGreaterThan(0);
  });
});
