// The node helpers the lowerings share: what they keep on a node must be what napi says of it.
import type { SgNode } from "@ast-grep/napi";
import { kindOf, locOf, namedChildren } from "./lower-util";
import { parseSource } from "./parser";

const JAVA = `class A {
  // a comment between members
  @Deprecated public void f(String s) { /* inside */ g(s); }
  int x = 1;
}`;

function walk(node: SgNode, visit: (n: SgNode) => void): void {
  visit(node);
  for (const c of node.namedChildren()) walk(c, visit);
}

describe("lower-util node helpers", () => {
  it("drop comments from named children, and give the same list when asked again", () => {
    const root = parseSource("java", JAVA).root();
    const body = root.find({ rule: { kind: "class_body" } })!;
    const first = namedChildren(body);
    expect(first.map(kindOf)).toEqual(["method_declaration", "field_declaration"]);
    expect(namedChildren(body)).toBe(first);
    // Comments are still there for anyone asking napi directly.
    expect(body.namedChildren().map((c) => c.kind())).toContain("line_comment");
  });

  it("give every node napi's kind and place, whether asked first through its parent or directly", () => {
    const root = parseSource("java", JAVA).root();
    walk(root, (n) => {
      for (const c of namedChildren(n)) expect(kindOf(c)).toBe(c.kind());
      const r = n.range();
      const loc = { line: r.start.line + 1, column: r.start.column + 1, endLine: r.end.line + 1, endColumn: r.end.column + 1 };
      expect(locOf(n)).toEqual(loc);
      expect(locOf(n)).toEqual(loc);
      expect(kindOf(n)).toBe(n.kind());
    });
  });

  it("keep nothing across parses: another tree of the same text is asked afresh", () => {
    const a = parseSource("java", "class A { void f() {} }").root();
    const b = parseSource("java", "class A {\n  void f() {}\n}").root();
    const method = (root: SgNode) => root.find({ rule: { kind: "method_declaration" } })!;
    expect(locOf(method(a)).line).toBe(1);
    expect(locOf(method(b)).line).toBe(2);
    expect(namedChildren(a)).not.toBe(namedChildren(b));
  });
});
