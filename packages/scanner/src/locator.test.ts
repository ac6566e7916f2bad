// What identity matching reads of a finding's surroundings, on code of several languages.
import { locate, scopeOf } from "./locator";

const finding = (line: number, snippet: string) => ({ start_line: line, end_line: line, snippet, raw: null });

describe("scopeOf", () => {
  it("names the enclosing method and class in JavaScript, Python and Java, skipping control flow", () => {
    const js = ["class Repo {", "  async load(id) {", "    if (id) {", "      eval(id);", "    }", "  }", "}"];
    expect(scopeOf(js, 4)).toEqual(["class Repo", "load"]);
    const arrow = ["export const handler = async (req, res) => {", "  res.redirect(req.query.next);", "};"];
    expect(scopeOf(arrow, 2)).toEqual(["handler"]);
    const py = ["class Store:", "    def get(self, key):", "        for k in key:", "            pickle.loads(k)"];
    expect(scopeOf(py, 4)).toEqual(["class Store", "def get"]);
    const java = [
      "public class A {",
      '  @GetMapping("/x")',
      "  public String run(String cmd) throws IOException {",
      "    try {",
      "      Runtime.getRuntime().exec(cmd);",
      "    } catch (Exception e) {}",
      "  }",
      "}",
    ];
    expect(scopeOf(java, 5)).toEqual(["class A", "run"]);
  });

  it("is empty at the top level", () => {
    expect(scopeOf(["eval(x);"], 1)).toEqual([]);
  });
});

describe("locate", () => {
  it("ignores formatting and tells identical lines apart by their surroundings", () => {
    const a = ["function f(x) {", "  log(1);", "  eval(x);", "  log(2);", "}"];
    const reformatted = ["function f(x) {", "    log(1);", "    eval( x );", "    log(2);", "}"];
    const elsewhere = ["function f(x) {", "  log(3);", "  eval(x);", "  log(4);", "}"];
    expect(locate(reformatted, finding(3, "eval( x );"))).toEqual(locate(a, finding(3, "eval(x);")));
    const here = locate(a, finding(3, "eval(x);"));
    const there = locate(elsewhere, finding(3, "eval(x);"));
    expect([there.code, there.scope]).toEqual([here.code, here.scope]);
    expect(there.context).not.toBe(here.context);
  });
});
