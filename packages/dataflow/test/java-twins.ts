/**
 * The Java taint analysis tests' shared ground (java-engine-*.test.ts): lowerJava →
 * analyzeModules with JAVA_SPEC on small servlet / Spring / JDBC programs, and `twins`, which
 * checks a vulnerable program and its safe twin. The vulnerable one must give exactly the
 * expected finding (rule, CWE, file, line of the `// SINK` marker) and the safe one none.
 *
 * Where the engine is known to be wrong the case is `it.failing` (through `knownBug`) with the
 * bug named in `bug` or in a comment: the expectation states the correct behaviour, so once the
 * engine is fixed Jest reports the case and the marker must be removed.
 */
import { analyzeModules, type TaintTrace } from "../src/engine";
import { lowerJava } from "../src/java";
import { JAVA_SPEC } from "../src/java-spec";

export type Files = Readonly<Record<string, string>>;

export interface Place {
  rule: string;
  cwe: string | null;
  file: string;
  line: number;
}

export function scan(files: Files): TaintTrace[] {
  const lines = new Map(Object.entries(files).map(([f, s]) => [f, s.split("\n")]));
  return analyzeModules(
    Object.entries(files).map(([f, s]) => lowerJava(f, s)),
    { specs: new Map([["java", JAVA_SPEC]]), lines: (f) => lines.get(f) ?? [] },
  );
}

export function places(findings: readonly TaintTrace[]): Place[] {
  return findings
    .map((f) => ({ rule: f.rule_id, cwe: f.cwe_id, file: f.file, line: f.start_line }))
    .sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.rule.localeCompare(b.rule));
}

/** 1-based line of the only line of `source` containing `marker`. */
export function lineOf(source: string, marker: string): number {
  const found = source.split("\n").flatMap((l, i) => (l.includes(marker) ? [i + 1] : []));
  if (found.length !== 1) throw new Error(`marker ${marker} found ${found.length} times`);
  return found[0] ?? 0;
}

/** The file and line of the single `// SINK` marker among the files. */
export function sinkPlace(files: Files): { file: string; line: number } {
  const withMarker = Object.entries(files).filter(([, s]) => s.includes("// SINK"));
  const [entry] = withMarker;
  if (withMarker.length !== 1 || !entry) throw new Error(`expected one file with // SINK, got ${withMarker.length}`);
  return { file: entry[0], line: lineOf(entry[1], "// SINK") };
}

export function dedent(text: string): string {
  const lines = text.replace(/^\n+/, "").replace(/\s+$/, "").split("\n");
  const pad = Math.min(...lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
  return lines.map((l) => l.slice(Number.isFinite(pad) ? pad : 0)).join("\n");
}

export function indent(text: string, n: number): string {
  if (!text.trim()) return "";
  return dedent(text)
    .split("\n")
    .map((l) => (l ? " ".repeat(n) + l : l))
    .join("\n");
}

export const MAIN = "src/main/java/com/example/web/UserServlet.java";
export const PKG = "src/main/java/com/example/web";

export const IMPORTS = dedent(`
  package com.example.web;

  import java.io.*;
  import java.net.URL;
  import java.net.URLEncoder;
  import java.nio.file.Files;
  import java.nio.file.Paths;
  import java.sql.*;
  import java.util.*;
  import javax.naming.directory.*;
  import javax.servlet.ServletException;
  import javax.servlet.http.*;
  import javax.xml.xpath.*;
  import org.xml.sax.InputSource;
`);

/** A servlet whose doGet holds `body` (with `stmt`, a JDBC Statement, in scope) and the class `members`. */
export function servlet(body: string, members = ""): string {
  return `${IMPORTS}

public class UserServlet extends HttpServlet {
  private Connection conn;
${indent(members, 2)}

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response) throws ServletException, IOException, SQLException {
    Statement stmt = conn.createStatement();
${indent(body, 4)}
  }
}
`;
}

export function inServlet(body: string, members = ""): Files {
  return { [MAIN]: servlet(body, members) };
}

export const SQL = { rule: "java-taint-sql", cwe: "CWE-89" };
export const COMMAND = { rule: "java-taint-command", cwe: "CWE-78" };
export const HEADER = { rule: "java-taint-header", cwe: "CWE-113" };

export interface Twin {
  name: string;
  vuln: Files;
  safe: Files;
  /** Rule and CWE of the vulnerable twin's one finding (at its `// SINK` line); SQL injection unless told. */
  expect?: { rule: string; cwe: string };
  /** A known engine bug that makes one twin fail: its description. */
  bug?: { vuln?: string; safe?: string };
}

/**
 * `it.failing` for a case the engine is known to get wrong. With SHOW_KNOWN_BUGS=1 they run as
 * plain tests, so their failures show what the engine does today.
 */
export const knownBug = process.env.SHOW_KNOWN_BUGS ? it : it.failing;

export function twins(title: string, cases: readonly Twin[]): void {
  describe.each(cases)(`${title}: $name`, ({ vuln, safe, expect: want = SQL, bug }) => {
    (bug?.vuln ? knownBug : it)("reports the vulnerable twin at its sink", () => {
      expect(places(scan(vuln))).toEqual([{ ...want, ...sinkPlace(vuln) }]);
    });
    (bug?.safe ? knownBug : it)("reports nothing for the safe twin", () => {
      expect(places(scan(safe))).toEqual([]);
    });
  });
}

export const FILTER = `${PKG}/AuthFilter.java`;
export function authFilter(lookup: string): string {
  return dedent(`
    package com.example.web;

    import java.io.IOException;
    import java.sql.*;
    import javax.servlet.*;
    import javax.servlet.http.HttpServletRequest;

    public class AuthFilter implements Filter {
      private Connection conn;

      @Override
      public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) req;
        String user = http.getHeader("X-User");
        try {
          ${lookup}
        } catch (SQLException e) {
          throw new ServletException(e);
        }
        chain.doFilter(req, res);
      }
    }
  `);
}

export function springController(handler: string): Files {
  return {
    [`${PKG}/UserController.java`]: dedent(`
      package com.example.web;

      import java.util.*;
      import org.springframework.jdbc.core.JdbcTemplate;
      import org.springframework.web.bind.annotation.*;

      @RestController
      public class UserController {
        private final JdbcTemplate jdbc;

        public UserController(JdbcTemplate jdbc) {
          this.jdbc = jdbc;
        }

        ${handler}
      }
    `),
  };
}

/** A class of another file whose method runs a command (cross-file calls and the command sink). */
export const RUNNER = `${PKG}/CommandRunner.java`;
export const RUNNER_SRC = dedent(`
  package com.example.web;

  import java.io.IOException;

  public class CommandRunner {
    public Process ping(String host) throws IOException {
      return Runtime.getRuntime().exec(new String[] {"ping", "-c", "1", host}); // SINK
    }
  }
`);
