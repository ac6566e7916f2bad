/** Log injection (CWE-117): request data logged as-is, and the same value with its line breaks replaced. */
import { describe, expect, it } from "@jest/globals";
import { dedent, places, scan } from "../test/java-twins";

const FILE = "src/main/java/com/example/web/LoginServlet.java";

const servlet = (logged: string) =>
  dedent(`
    package com.example.web;

    import javax.servlet.http.HttpServlet;
    import javax.servlet.http.HttpServletRequest;
    import javax.servlet.http.HttpServletResponse;
    import org.slf4j.Logger;
    import org.slf4j.LoggerFactory;

    public class LoginServlet extends HttpServlet {
        private static final Logger log = LoggerFactory.getLogger(LoginServlet.class);

        protected void doPost(HttpServletRequest request, HttpServletResponse response) {
            String user = request.getParameter("user");
            log.warn("failed login for {}", ${logged});
        }
    }
  `);

const logInjection = (logged: string) => places(scan({ [FILE]: servlet(logged) })).filter((p) => p.cwe === "CWE-117");

describe("log injection", () => {
  it("reports request data written to a logger", () => {
    expect(logInjection("user").map((p) => [p.rule, p.line])).toEqual([["java-taint-log", 14]]);
  });

  it.each([
    ["replaceAll of a line-break class", `user.replaceAll("[\\\\r\\\\n]", "_")`],
    ["replace of a newline", `user.replace("\\n", " ")`],
  ])("is silent when the value's line breaks are replaced (%s)", (_name, logged) => {
    expect(logInjection(logged)).toEqual([]);
  });

  it("is not satisfied by a replacement that keeps line breaks or touches other characters", () => {
    expect(logInjection(`user.replace("a", "b")`)).toHaveLength(1);
    expect(logInjection(`user.replace("\\r", "\\n")`)).toHaveLength(1);
  });

  it("ignores a constant message", () => {
    expect(logInjection(`"anonymous"`)).toEqual([]);
  });
});
