/**
 * Refutation for the framework and table sinks of issue 20 (sites.ts): where only constants or
 * sanitized values reach a returned response body, a session write, Koa's `ctx.body` or a
 * java.nio `Files` call, the place is a clean site, so a pattern finding there can be refuted;
 * a handler's own input makes it a trace, never a site.
 */
import { analyzeProgram } from "./engine";
import { LOWERERS, SPECS } from "./languages";
import { dedent } from "../test/java-twins";

function sitesAt(file: string, source: string) {
  const text = dedent(source);
  const language = file.endsWith(".java") ? "java" : file.endsWith(".py") ? "python" : "javascript";
  const lines = text.split("\n");
  const a = analyzeProgram([LOWERERS.get(language)!(file, text)], { specs: SPECS, lines: () => lines });
  const line = lines.findIndex((l) => /(#|\/\/) SINK/.test(l)) + 1;
  return {
    traces: a.traces.map((t) => `${t.rule_id}@${t.start_line}`),
    sites: a.sites.filter((s) => s.start_line <= line && s.end_line >= line).map((s) => [s.rule_id, s.cwe_id, s.status]),
  };
}

describe("framework and table sinks: clean sites", () => {
  it("a Spring handler returning a constant page", () => {
    expect(
      sitesAt(
        "Home.java",
        `
        @RestController
        public class Home {
            @GetMapping("/")
            public String home(@RequestParam String name) {
                return "<h1>Welcome</h1>"; // SINK
            }
        }
      `,
      ),
    ).toEqual({ traces: [], sites: [["java-taint-xss-response-body", "CWE-79", "clean"]] });
  });

  it("a Flask session written with a constant, and a Flask view returning an escaped name", () => {
    expect(
      sitesAt(
        "app.py",
        `
        from flask import Flask, session
        app = Flask(__name__)

        @app.route("/logout")
        def logout():
            session["user"] = None  # SINK
            return "bye"
      `,
      ),
    ).toEqual({ traces: [], sites: [["py-taint-trust-boundary", "CWE-501", "clean"]] });
    expect(
      sitesAt(
        "app.py",
        `
        from flask import Flask, request
        from markupsafe import escape
        app = Flask(__name__)

        @app.route("/hi")
        def hi():
            return "<p>" + escape(request.args.get("n", "")) + "</p>"  # SINK
      `,
      ),
    ).toEqual({
      traces: [],
      // Lowered as `make_response(body)`: its (absent) headers are judged too.
      sites: [
        ["py-taint-header-response", "CWE-113", "clean"],
        ["py-taint-xss", "CWE-79", "clean"],
      ],
    });
  });

  it("Koa ctx.body and an Express session write with constants", () => {
    expect(
      sitesAt(
        "server.js",
        `
        router.get("/ping", async (ctx) => {
          ctx.body = "<p>pong</p>"; // SINK
        });
      `,
      ),
    ).toEqual({ traces: [], sites: [["js-taint-xss-koa-body", "CWE-79", "clean"]] });
    expect(
      sitesAt(
        "server.js",
        `
        app.post("/logout", (req, res) => {
          req.session.user = null; // SINK
          res.end();
        });
      `,
      ),
    ).toEqual({ traces: [], sites: [["js-taint-trust-boundary", "CWE-501", "clean"]] });
  });

  it("a Files call on a constant path; the same call on the request's name is a trace", () => {
    const body = (name: string) => `
      public class Files2 extends HttpServlet {
          protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
              Path p = Paths.get("/srv/files").resolve(${name});
              List<String> lines = Files.readAllLines(p); // SINK
          }
      }
    `;
    expect(sitesAt("Files2.java", body(`"index.txt"`))).toEqual({ traces: [], sites: [["java-taint-path-files", "CWE-22", "clean"]] });
    expect(sitesAt("Files2.java", body(`request.getParameter("f")`))).toEqual({ traces: ["java-taint-path-files@4"], sites: [] });
  });
});
