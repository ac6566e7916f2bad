// The Python lowering of expressions.
import { lower, strip, moduleBody, fn, valueOf, callOf } from "../test/python-lowering";

describe("lowerPython: expressions", () => {
  it("lowers literals", () => {
    expect(valueOf("x = 'a' \"b\"")).toEqual({ k: "const", value: "ab" });
    expect(valueOf("x = 'tab\\there'")).toEqual({ k: "const", value: "tab\there" });
    expect(valueOf("x = r'\\d+'")).toEqual({ k: "const", value: "\\d+" });
    expect(valueOf("x = 0x1F")).toEqual({ k: "const", value: 31 });
    expect(valueOf("x = 1_000.5")).toEqual({ k: "const", value: 1000.5 });
    expect(valueOf("x = True")).toEqual({ k: "const", value: true });
    expect(valueOf("x = False")).toEqual({ k: "const", value: false });
    expect(valueOf("x = None")).toEqual({ k: "const", value: null });
  });

  it("lowers f-strings to templates of constant pieces and interpolations", () => {
    expect(valueOf('x = f"SELECT * FROM t WHERE id = {uid} AND n = {n!r:>{w}}"')).toEqual({
      k: "template",
      parts: [
        { k: "const", value: "SELECT * FROM t WHERE id = " },
        { k: "var", name: "uid" },
        { k: "const", value: " AND n = " },
        { k: "var", name: "n" },
        { k: "var", name: "w" },
      ],
    });
    expect(valueOf('x = f"{{literal}}"')).toEqual({ k: "const", value: "{literal}" });
    expect(valueOf('x = "a" f"{b}"')).toEqual({
      k: "template",
      parts: [
        { k: "const", value: "a" },
        { k: "var", name: "b" },
      ],
    });
  });

  it("keeps %-formatting as the binary operator and .format as a call on the string", () => {
    expect(valueOf('x = "rm %s" % name')).toEqual({
      k: "binary",
      op: "%",
      left: { k: "const", value: "rm %s" },
      right: { k: "var", name: "name" },
    });
    expect(valueOf('x = "rm {}".format(name)')).toMatchObject({
      k: "call",
      callee: "format",
      receiver: { k: "const", value: "rm {}" },
      args: [{ k: "var", name: "name" }],
    });
  });

  it("maps boolean, comparison and not operators", () => {
    expect(valueOf("x = not a and b or c")).toEqual({
      k: "binary",
      op: "||",
      left: { k: "binary", op: "&&", left: { k: "unary", op: "!", arg: { k: "var", name: "a" } }, right: { k: "var", name: "b" } },
      right: { k: "var", name: "c" },
    });
    expect(valueOf("x = a == b")).toMatchObject({ k: "binary", op: "==" });
    expect(valueOf("x = a not in b")).toMatchObject({ k: "binary", op: "not in" });
    expect(valueOf("x = a is not None")).toMatchObject({ k: "binary", op: "is not", right: { k: "const", value: null } });
    expect(valueOf("x = 0 < a <= 9")).toEqual({
      k: "binary",
      op: "&&",
      left: { k: "binary", op: "<", left: { k: "const", value: 0 }, right: { k: "var", name: "a" } },
      right: { k: "binary", op: "<=", left: { k: "var", name: "a" }, right: { k: "const", value: 9 } },
    });
    expect(valueOf("x = -a")).toEqual({ k: "unary", op: "-", arg: { k: "var", name: "a" } });
  });

  it("lowers conditional expressions, subscripts, containers and dicts", () => {
    expect(valueOf("x = a if t else b")).toEqual({
      k: "cond",
      test: { k: "var", name: "t" },
      then: { k: "var", name: "a" },
      else: { k: "var", name: "b" },
    });
    expect(valueOf("x = args['q']")).toEqual({ k: "index", object: { k: "var", name: "args" }, index: { k: "const", value: "q" } });
    expect(valueOf("x = [a, (b, c), {d}]")).toEqual({
      k: "array",
      items: [
        { k: "var", name: "a" },
        {
          k: "array",
          items: [
            { k: "var", name: "b" },
            { k: "var", name: "c" },
          ],
        },
        { k: "array", items: [{ k: "var", name: "d" }] },
      ],
    });
    expect(valueOf("x = {'k': v, key: w, **rest}")).toEqual({
      k: "object",
      entries: [
        { key: "k", value: { k: "var", name: "v" } },
        { key: null, value: { k: "var", name: "w" } },
        { key: null, value: { k: "unknown", parts: [{ k: "var", name: "rest" }] } },
      ],
    });
  });

  it("binds comprehension variables with for-each loops before the statement; the value is the element", () => {
    expect(moduleBody("x = [quote(i) for i in items if ok(i)]")).toEqual([
      { k: "declare", name: "i" },
      {
        k: "loop",
        kind: "foreach",
        test: null,
        init: [],
        update: [],
        each: { target: { k: "var", name: "i" }, iterable: { k: "var", name: "items" } },
        body: [{ k: "expr", expr: expect.objectContaining({ k: "call", callee: "ok" }) }],
      },
      {
        k: "assign",
        target: { k: "var", name: "x" },
        op: "=",
        value: { k: "unknown", parts: [expect.objectContaining({ k: "call", callee: "quote", args: [{ k: "var", name: "i" }] })] },
      },
    ]);
    const [k, v, outer, assign] = moduleBody("x = {k: v for k, v in pairs for w in v}");
    expect([k, v]).toEqual([
      { k: "declare", name: "k" },
      { k: "declare", name: "v" },
    ]);
    expect(outer).toMatchObject({
      each: { target: { k: "destructure" }, iterable: { name: "pairs" } },
      body: [
        { k: "declare", name: "w" },
        { k: "loop", each: { target: { name: "w" }, iterable: { name: "v" } } },
      ],
    });
    expect(assign).toMatchObject({ value: { k: "unknown", parts: [{ name: "k" }, { name: "v" }] } });
    const m = lower("f = lambda xs: [y for y in xs]\n");
    expect(strip(m.functions[1]?.body)).toMatchObject([
      { k: "declare", name: "y" },
      { k: "loop", each: { iterable: { name: "xs" } } },
      { k: "return", value: { k: "unknown" } },
    ]);
  });

  it("unwraps await and parentheses; splats are opaque", () => {
    expect(valueOf("x = await (fetch(u))")).toMatchObject({ k: "call", callee: "fetch" });
    expect(valueOf("x = [*a]")).toEqual({ k: "array", items: [{ k: "unknown", parts: [{ k: "var", name: "a" }] }] });
  });

  it("gives attribute chains a written path", () => {
    expect(valueOf("x = request.args")).toEqual({ k: "field", object: { k: "var", name: "request" }, name: "args", path: "request.args" });
    expect(valueOf("x = f().args")).toMatchObject({ k: "field", name: "args" });
    expect(valueOf("x = f().args")).not.toHaveProperty("path");
  });

  it("lowers calls with callee, receiver, kwargs and splats", () => {
    const c = callOf("subprocess.run(cmd, *more, shell=True, check=False, **opts)");
    expect(c).toMatchObject({
      k: "call",
      callee: "run",
      receiver: { k: "var", name: "subprocess" },
      path: "subprocess.run",
      args: [
        { k: "var", name: "cmd" },
        { k: "unknown", parts: [{ k: "var", name: "more" }] },
        { k: "unknown", parts: [{ k: "var", name: "opts" }] },
      ],
      kwargs: { shell: { k: "const", value: true }, check: { k: "const", value: false } },
      text: "subprocess.run(cmd, *more, shell=True, check=False, **opts)",
    });
    expect(callOf("eval(x)")).toMatchObject({ callee: "eval", receiver: null, path: "eval" });
    expect(callOf("eval(x)")).not.toHaveProperty("kwargs");
    expect(callOf("conn.cursor().execute(q)")).toMatchObject({ callee: "execute", receiver: { k: "call", callee: "cursor" } });
    expect(callOf("conn.cursor().execute(q)")).not.toHaveProperty("path");
    expect(callOf("f(__proto__=x)").kwargs).toEqual(expect.objectContaining({ ["__proto__"]: expect.objectContaining({ name: "x" }) }));
  });

  it("resolves the first segment of call paths through imports", () => {
    const m = lower(
      "import subprocess as sp\nimport os.path\nfrom os import system as run_it, popen\nfrom flask import request\nsp.run(x)\nrun_it(x)\npopen(x)\n" +
        "os.path.join(a, b)\nrequest.args.get('q')\n",
    );
    expect(m.imports).toEqual({ sp: "subprocess", os: "os", run_it: "os.system", popen: "os.popen", request: "flask.request" });
    const paths = strip(fn(m, "<module>").body).map((s) => (s.k === "expr" && s.expr.k === "call" ? s.expr.path : undefined));
    expect(paths).toEqual(["subprocess.run", "os.system", "os.popen", "os.path.join", "flask.request.args.get"]);
  });

  it("records relative and function-level imports and skips star imports", () => {
    const m = lower(
      "from . import views\nfrom ..db import q as query\nfrom m import *\ndef f():\n    import pickle\n    return pickle.loads(b)\n",
    );
    expect(m.imports).toEqual({ views: ".views", query: "..db.q", pickle: "pickle" });
  });
});
