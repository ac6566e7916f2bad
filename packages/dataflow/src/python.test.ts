import { SEVERITIES } from "@ax/contracts";
import type { Expr, FunctionIR, ModuleIR, Stmt } from "./ir";
import { chainPath } from "./lower-util";
import { lowerPython } from "./python";
import { PYTHON_SPEC } from "./python-spec";
import type { CallPattern } from "./spec";

function lower(source: string): ModuleIR {
  return lowerPython("app.py", source);
}

/** The IR without locations, for whole-shape comparisons. */
function strip<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (k, v: unknown) => (k === "loc" ? undefined : v))) as T;
}

function moduleBody(source: string): Stmt[] {
  return strip(fn(lower(source), "<module>").body);
}

function fn(m: ModuleIR, name: string): FunctionIR {
  const found = m.functions.find((f) => f.name === name);
  if (!found) throw new Error(`no function ${name} in ${m.functions.map((f) => f.name).join(", ")}`);
  return found;
}

/** The value of the single `x = …` statement of a one-line program. */
function valueOf(source: string): Expr {
  const [first] = moduleBody(source);
  if (!first || first.k !== "assign") throw new Error(`not an assignment: ${JSON.stringify(first)}`);
  return first.value;
}

function callOf(source: string): Extract<Expr, { k: "call" }> {
  const body = moduleBody(source);
  const last = body[body.length - 1];
  const e = last?.k === "expr" ? last.expr : last?.k === "assign" ? last.value : undefined;
  if (!e || e.k !== "call") throw new Error(`not a call: ${JSON.stringify(last)}`);
  return e;
}

describe("lowerPython: statements", () => {
  it("lowers plain, chained, augmented and annotated assignments", () => {
    expect(moduleBody("x = 1\nx += y\nz: int = 2\nw: str\n")).toEqual([
      { k: "assign", target: { k: "var", name: "x" }, value: { k: "const", value: 1 }, op: "=" },
      { k: "assign", target: { k: "var", name: "x" }, value: { k: "var", name: "y" }, op: "+=" },
      { k: "assign", target: { k: "var", name: "z" }, value: { k: "const", value: 2 }, op: "=" },
      { k: "declare", name: "w" },
    ]);
    // The value is evaluated once; the other target copies it.
    expect(moduleBody("a = b = f()")).toEqual([
      { k: "assign", target: { k: "var", name: "b" }, value: expect.objectContaining({ k: "call", callee: "f" }), op: "=" },
      { k: "assign", target: { k: "var", name: "a" }, value: { k: "var", name: "b" }, op: "=" },
    ]);
  });

  it("destructures tuple, list, nested and starred targets", () => {
    const [s] = moduleBody("a, [b, *c], self.d = v");
    expect(s).toEqual({
      k: "assign",
      op: "=",
      value: { k: "var", name: "v" },
      target: {
        k: "destructure",
        targets: [
          { k: "var", name: "a" },
          {
            k: "destructure",
            targets: [
              { k: "var", name: "b" },
              { k: "var", name: "c" },
            ],
          },
          { k: "field", object: { k: "var", name: "self" }, name: "d", path: "self.d" },
        ],
      },
    });
  });

  it("assigns to subscripts and attributes", () => {
    expect(moduleBody("d['k'] = v\nobj.a.b = v")).toEqual([
      {
        k: "assign",
        target: { k: "index", object: { k: "var", name: "d" }, index: { k: "const", value: "k" } },
        value: { k: "var", name: "v" },
        op: "=",
      },
      {
        k: "assign",
        target: {
          k: "field",
          object: { k: "field", object: { k: "var", name: "obj" }, name: "a", path: "obj.a" },
          name: "b",
          path: "obj.a.b",
        },
        value: { k: "var", name: "v" },
        op: "=",
      },
    ]);
  });

  it("nests elif chains in else", () => {
    const [s] = moduleBody("if a:\n    x = 1\nelif b:\n    x = 2\nelse:\n    x = 3\n");
    expect(s).toMatchObject({
      k: "if",
      test: { k: "var", name: "a" },
      then: [{ k: "assign", value: { value: 1 } }],
      else: [
        {
          k: "if",
          test: { k: "var", name: "b" },
          then: [{ k: "assign", value: { value: 2 } }],
          else: [{ k: "assign", value: { value: 3 } }],
        },
      ],
    });
  });

  it("lowers for loops to foreach and while loops with their tests", () => {
    const [loop, after] = moduleBody("for k, v in items:\n    use(v)\nelse:\n    done()\n");
    expect(loop).toMatchObject({
      k: "loop",
      kind: "foreach",
      test: null,
      each: { target: { k: "destructure", targets: [{ name: "k" }, { name: "v" }] }, iterable: { k: "var", name: "items" } },
      body: [{ k: "expr", expr: { k: "call", callee: "use" } }],
    });
    expect(after).toMatchObject({ k: "expr", expr: { callee: "done" } });
    const [w] = moduleBody("while True:\n    break\n");
    expect(w).toMatchObject({ k: "loop", kind: "while", test: { k: "const", value: true }, body: [{ k: "break" }] });
    expect(moduleBody("for x in y:\n    continue\n")[0]).toMatchObject({ body: [{ k: "continue" }] });
  });

  it("turns `with … as` into assignments before the body", () => {
    expect(moduleBody("with open(p) as f, lock:\n    data = f.read()\n")).toEqual([
      {
        k: "assign",
        target: { k: "var", name: "f" },
        value: { k: "call", callee: "open", receiver: null, args: [{ k: "var", name: "p" }], path: "open", text: "open(p)" },
        op: "=",
      },
      { k: "expr", expr: { k: "var", name: "lock" } },
      {
        k: "assign",
        target: { k: "var", name: "data" },
        value: expect.objectContaining({ k: "call", callee: "read", receiver: { k: "var", name: "f" } }),
        op: "=",
      },
    ]);
  });

  it("lowers try/except/else/finally with the else block after the body", () => {
    const [t] = moduleBody("try:\n    a()\nexcept ValueError as e:\n    b(e)\nexcept:\n    pass\nelse:\n    c()\nfinally:\n    d()\n");
    expect(t).toMatchObject({
      k: "try",
      body: [{ expr: { callee: "a" } }, { expr: { callee: "c" } }],
      handlers: [
        { param: "e", body: [{ expr: { callee: "b" } }] },
        { param: null, body: [] },
      ],
      finally: [{ expr: { callee: "d" } }],
    });
    const [u] = moduleBody("try:\n    a()\nexcept OSError:\n    with open(p) as fh:\n        pass\n");
    expect(u).toMatchObject({ handlers: [{ param: null, body: [{ k: "assign", target: { name: "fh" } }] }] });
  });

  it("lowers raise to throw and return values, tuples included", () => {
    expect(moduleBody("raise ValueError(msg) from err\nraise\n")).toMatchObject([
      { k: "throw", value: { k: "call", callee: "ValueError" } },
      { k: "throw", value: null },
    ]);
    const m = lower("def f():\n    return a, b\n");
    expect(strip(fn(m, "f").body)).toEqual([
      {
        k: "return",
        value: {
          k: "array",
          items: [
            { k: "var", name: "a" },
            { k: "var", name: "b" },
          ],
        },
      },
    ]);
  });

  it("ignores import, global, nonlocal, pass and del", () => {
    expect(moduleBody("import os\nfrom x import y\nglobal g\npass\ndel z\n")).toEqual([]);
  });

  it("lowers match to a switch whose cases do not fall through", () => {
    const [s] = moduleBody(
      'match cmd:\n    case "a" | "b":\n        x()\n    case [first, *rest]:\n        y(first)\n    case other if other:\n        z()\n    case _:\n        w()\n',
    );
    expect(s).toMatchObject({
      k: "switch",
      test: { k: "var", name: "cmd" },
      cases: [
        {
          values: [
            { k: "const", value: "a" },
            { k: "const", value: "b" },
          ],
          body: [{ expr: { callee: "x" } }, { k: "break" }],
        },
        {
          body: [
            { k: "assign", target: { k: "destructure", targets: [{ name: "first" }, { name: "rest" }] }, value: { k: "var", name: "cmd" } },
            { expr: { callee: "y" } },
            { k: "break" },
          ],
        },
        { body: [{ k: "assign" }, { k: "if", test: { k: "var", name: "other" } }, { k: "break" }] },
        { values: null, body: [{ expr: { callee: "w" } }, { k: "break" }] },
      ],
    });
  });

  it("walrus bindings come before the statement that contains them", () => {
    expect(moduleBody("if (m := find(x)):\n    use(m)\n")).toMatchObject([
      { k: "assign", target: { k: "var", name: "m" }, value: { k: "call", callee: "find" } },
      { k: "if", test: { k: "var", name: "m" } },
    ]);
  });

  it("never throws on broken input and keeps what parses", () => {
    const m = lower("def f(:\n    x = (\ny = os.system(\nclass :\n  @@\nz = 3\n");
    expect(m.functions[0]?.name).toBe("<module>");
    expect(() => lower("\u0000\uffff)))(((")).not.toThrow();
    expect(() => lower("x = " + "(".repeat(3000) + "1" + ")".repeat(3000))).not.toThrow();
  });
});

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
      "import subprocess as sp\nimport os.path\nfrom os import system as run_it, popen\nfrom flask import request\nsp.run(x)\nrun_it(x)\npopen(x)\nos.path.join(a, b)\nrequest.args.get('q')\n",
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

describe("lowerPython: functions and classes", () => {
  it("lowers every def, with parameters as written", () => {
    const m = lower(
      "def f(a, b: str = 'x', *args, c, **kw):\n    return a\n\nasync def g():\n    def inner(y):\n        return y\n    return inner(1)\n",
    );
    expect(m.functions.map((f) => f.name)).toEqual(["<module>", "f", "g", "inner"]);
    expect(fn(m, "f").params).toEqual([{ name: "a" }, { name: "b", type: "str" }, { name: "args" }, { name: "c" }, { name: "kw" }]);
    expect(fn(m, "inner")).toMatchObject({ cls: null, params: [{ name: "y" }] });
    expect(fn(lower("def h(r: 'starlette.requests.Request', n: Optional[int] = None): pass\n"), "h").params).toEqual([
      { name: "r", type: "Request" },
      { name: "n", type: "Optional" },
    ]);
    expect(fn(m, "<module>").body).toEqual([]);
  });

  it("lowers classes: fields from class-level assignments, methods keeping self", () => {
    const m = lower(
      "class Repo(Base, Mixin, metaclass=Meta):\n    table = 'users'\n    limit: int\n    MAX: Final = 3\n    def __init__(self, db):\n        self.db = db\n    @staticmethod\n    def make():\n        return Repo(None)\n    @classmethod\n    def build(cls, x):\n        def helper(z):\n            return z\n        return cls(x)\n    register(table)\n",
    );
    expect(strip(m.classes)).toEqual([
      {
        name: "Repo",
        superclass: "Base",
        interfaces: ["Mixin"],
        fields: [
          { name: "table", value: { k: "const", value: "users" }, isStatic: true, isFinal: false },
          { name: "limit", value: null, isStatic: true, isFinal: false },
          { name: "MAX", value: { k: "const", value: 3 }, isStatic: true, isFinal: true },
        ],
      },
    ]);
    expect(fn(m, "__init__")).toMatchObject({ cls: "Repo", isConstructor: true, params: [{ name: "self" }, { name: "db" }] });
    expect(strip(fn(m, "__init__").body)).toEqual([
      {
        k: "assign",
        target: { k: "field", object: { k: "var", name: "self" }, name: "db", path: "self.db" },
        value: { k: "var", name: "db" },
        op: "=",
      },
    ]);
    expect(fn(m, "make")).toMatchObject({ cls: "Repo", isStatic: true, params: [] });
    expect(fn(m, "build")).toMatchObject({ cls: "Repo", params: [{ name: "cls" }, { name: "x" }] });
    expect(fn(m, "build").isStatic).toBeFalsy();
    // Nested defs take no receiver.
    expect(fn(m, "helper").cls).toBeNull();
    // Loose class-body statements run where the class is defined.
    expect(strip(fn(m, "<module>").body)).toMatchObject([{ k: "expr", expr: { callee: "register" } }]);
  });

  it("lowers lambdas into their own functions", () => {
    const m = lower("key = lambda item, n=1: item.name + n\n");
    const [s] = strip(fn(m, "<module>").body);
    expect(s).toMatchObject({ k: "assign", value: { k: "lambda" } });
    const name = s?.k === "assign" && s.value.k === "lambda" ? s.value.name : "";
    expect(name).toMatch(/^<lambda/);
    expect(strip(fn(m, name))).toEqual({
      name,
      cls: null,
      params: [{ name: "item" }, { name: "n" }],
      body: [
        {
          k: "return",
          value: {
            k: "binary",
            op: "+",
            left: { k: "field", object: { k: "var", name: "item" }, name: "name", path: "item.name" },
            right: { k: "var", name: "n" },
          },
        },
      ],
    });
    const two = lower("a = lambda: 1\nb = lambda: 2\n");
    expect(new Set(two.functions.map((f) => f.name)).size).toBe(3);
  });

  it("gives 1-based locations", () => {
    const m = lower("x = 1\ndef f():\n    return eval(y)\n");
    const f = fn(m, "f");
    expect(f.loc).toEqual({ line: 2, column: 1, endLine: 3, endColumn: 19 });
    const ret = f.body[0];
    expect(ret?.k === "return" && ret.value?.loc).toEqual({ line: 3, column: 12, endLine: 3, endColumn: 19 });
  });
});

describe("lowerPython: framework parameters", () => {
  it("marks FastAPI route parameters, not the request or dependencies", () => {
    const m = lower(
      "from fastapi import FastAPI, Depends, Request\napp = FastAPI()\n@app.get('/items/{item_id}')\nasync def read(item_id: int, q: str, request: Request, db = Depends(get_db), user: Annotated[User, Depends(current)] = None):\n    pass\n",
    );
    expect(fn(m, "read").sourceParams).toEqual([
      { index: 0, label: "route parameter `item_id`" },
      { index: 1, label: "route parameter `q`" },
    ]);
  });

  it("marks Flask route parameters", () => {
    const m = lower(
      "from flask import Flask\napp = Flask(__name__)\n@app.route('/users/<int:id>')\ndef show(id):\n    pass\n@bp.get('/x/<name>')\ndef other(name):\n    pass\n",
    );
    expect(fn(m, "show").sourceParams).toEqual([{ index: 0, label: "URL path parameter `id`" }]);
    expect(fn(m, "other").sourceParams).toEqual([{ index: 0, label: "URL path parameter `name`" }]);
  });

  it("marks Django view parameters after request, in functions and class-based views", () => {
    const m = lower(
      "def detail(request, pk, slug):\n    pass\nclass V(View):\n    def get(self, request, pk):\n        pass\n    def helper(self, request, x):\n        pass\n",
    );
    expect(fn(m, "detail").sourceParams).toEqual([
      { index: 1, label: "view parameter `pk`" },
      { index: 2, label: "view parameter `slug`" },
    ]);
    expect(fn(m, "get").sourceParams).toEqual([{ index: 2, label: "view parameter `pk`" }]);
    expect(fn(m, "helper").sourceParams).toBeUndefined();
  });

  it("leaves plain functions without sources", () => {
    const m = lower("@functools.lru_cache()\ndef f(a, b):\n    pass\ndef g(req: Request, x):\n    pass\n");
    expect(fn(m, "f").sourceParams).toBeUndefined();
    expect(fn(m, "g").sourceParams).toBeUndefined();
  });
});

describe("PYTHON_SPEC", () => {
  const all = [...PYTHON_SPEC.sources, ...PYTHON_SPEC.sinks, ...PYTHON_SPEC.sanitizers];

  /** Rules whose call pattern matches the last call of a snippet, as the spec documents matching. */
  function matching<R extends { id: string; call?: CallPattern }>(rules: readonly R[], source: string): string[] {
    const c = callOf(source);
    const receiverText = c.receiver ? (chainPath(c.receiver) ?? (c.receiver.k === "call" ? c.receiver.text : undefined)) : undefined;
    return rules
      .filter((r) => {
        const p = r.call;
        if (!p || !p.names.includes(c.callee)) return false;
        if (p.path && !(c.path !== undefined && p.path.test(c.path))) return false;
        if (p.receiver && !(receiverText !== undefined && p.receiver.test(receiverText))) return false;
        return true;
      })
      .map((r) => r.id);
  }
  const sinks = (source: string) => matching(PYTHON_SPEC.sinks, source);
  const cweOf = (id: string) => PYTHON_SPEC.sinks.find((s) => s.id === id)?.cwe;

  it("has unique ids, one well-formed CWE per sink and complete sink texts", () => {
    expect(new Set(all.map((r) => r.id)).size).toBe(all.length);
    for (const s of PYTHON_SPEC.sinks) {
      expect(s.id).toMatch(/^py-/);
      expect(s.cwe).toMatch(/^CWE-\d+$/);
      expect(SEVERITIES).toContain(s.severity);
      expect(s.title && s.message && s.remediation).toBeTruthy();
    }
    for (const s of PYTHON_SPEC.sanitizers) if (s.cwes !== "*") for (const c of s.cwes) expect(c).toMatch(/^CWE-\d+$/);
    expect(PYTHON_SPEC.confidence).toEqual({ remote: "HIGH", local: "MEDIUM" });
  });

  it("matches command sinks through import aliases, and subprocess only with shell=True", () => {
    expect(sinks("from os import system\nsystem(cmd)").map(cweOf)).toEqual(["CWE-78"]);
    expect(sinks("import os\nos.popen(cmd)").map(cweOf)).toEqual(["CWE-78"]);
    const [sub] = sinks("import subprocess as sp\nsp.run(cmd, shell=True)");
    expect(PYTHON_SPEC.sinks.find((s) => s.id === sub)?.requireKwarg).toEqual({ name: "shell", truthy: true });
    expect(sinks("def system(x): pass\nsystem(cmd)")).toEqual([]);
  });

  it("matches code, SQL, path, deserialization, SSRF, redirect and template sinks", () => {
    expect(sinks("eval(x)").map(cweOf)).toEqual(["CWE-95"]);
    expect(sinks("import re\nre.compile(x)")).toEqual([]);
    expect(sinks("model.eval()")).toEqual([]);
    expect(sinks("cursor.execute(q)").map(cweOf)).toEqual(["CWE-89"]);
    expect(sinks("from sqlalchemy import text\ntext(q)").map(cweOf)).toEqual(["CWE-89"]);
    expect(sinks("User.objects.raw(q)").map(cweOf)).toEqual(["CWE-89"]);
    expect(sinks("open(path)").map(cweOf)).toEqual(["CWE-22"]);
    expect(sinks("import os\nos.path.join(a, b)")).toEqual([]);
    expect(sinks("import shutil\nshutil.rmtree(p)").map(cweOf)).toEqual(["CWE-22"]);
    expect(sinks("import pickle\npickle.loads(b)").map(cweOf)).toEqual(["CWE-502"]);
    expect(sinks("import yaml\nyaml.load(s)").map(cweOf)).toEqual(["CWE-502"]);
    expect(sinks("import yaml\nyaml.safe_load(s)")).toEqual([]);
    expect(sinks("import requests\nrequests.get(url)").map(cweOf)).toEqual(["CWE-918"]);
    expect(sinks("session.get(url)")).toEqual([]);
    expect(sinks("from urllib.request import urlopen\nurlopen(url)").map(cweOf)).toEqual(["CWE-918"]);
    // Client objects are recognised by the call that made them, which the engine keeps with the value.
    const client = PYTHON_SPEC.sinks.find((s) => s.id === "py-taint-ssrf-client")?.call.receiver;
    expect(["httpx.AsyncClient(timeout=5.0)", "requests.Session()", "aiohttp.ClientSession()"].every((t) => client?.test(t))).toBe(true);
    expect(["Session()", "sessionmaker()()", "client"].some((t) => client?.test(t))).toBe(false);
    expect(sinks("from flask import redirect\nredirect(url)").map(cweOf)).toEqual(["CWE-601"]);
    expect(sinks("from django.http import HttpResponseRedirect\nHttpResponseRedirect(url)").map(cweOf)).toEqual(["CWE-601"]);
    expect(sinks("from flask import render_template_string\nrender_template_string(t)").map(cweOf)).toEqual(["CWE-1336"]);
    expect(sinks("from django.http import HttpResponse\nHttpResponse(body)").map(cweOf)).toEqual(["CWE-79"]);
    expect(sinks("conn.search_s(base, scope, flt)").map(cweOf)).toEqual(["CWE-90"]);
    expect(sinks("import re\nre.search(p, s)")).toEqual([]);
    expect(sinks("tree.xpath(q)").map(cweOf)).toEqual(["CWE-643"]);
  });

  it("aims path-traversal sinks at the unchecked argument of send_from_directory", () => {
    const [id] = sinks("from flask import send_from_directory\nsend_from_directory(d, name)");
    expect(PYTHON_SPEC.sinks.find((s) => s.id === id)?.args).toEqual([0, "directory"]);
  });

  it("recognises request, environment and argv sources", () => {
    const fieldSource = (path: string) => PYTHON_SPEC.sources.find((s) => s.field?.test(path));
    for (const p of [
      "request.args",
      "request.form",
      "request.GET",
      "request.POST",
      "request.COOKIES",
      "request.META",
      "request.body",
      "self.request.GET",
      "flask.request.json",
      "request.query_params",
    ]) {
      expect(fieldSource(p)?.kind).toBe("remote");
    }
    expect(fieldSource("os.environ")?.kind).toBe("local");
    expect(fieldSource("sys.argv")?.kind).toBe("local");
    expect(fieldSource("requests.args")).toBeUndefined();
    expect(fieldSource("urllib.request.urlopen")).toBeUndefined();
    expect(fieldSource("request.argsx")).toBeUndefined();
    const sources = (source: string) =>
      matching(PYTHON_SPEC.sources, source).map((id) => PYTHON_SPEC.sources.find((s) => s.id === id)?.kind);
    expect(sources("from flask import request\nrequest.args.get('q')")).toEqual(["remote"]);
    expect(sources("request.get_json()")).toEqual(["remote"]);
    expect(sources("input('> ')")).toEqual(["remote"]);
    expect(sources("import os\nos.getenv('HOME')")).toEqual(["local"]);
    expect(sources("import os\nos.environ.get('HOME')")).toEqual(["local"]);
    expect(sources("resp.json()")).toEqual([]);
  });

  it("has sanitizers for numbers, shell, HTML, file names and LDAP, and not for look-alikes", () => {
    const clean = (source: string) =>
      matching(PYTHON_SPEC.sanitizers, source).map((id) => PYTHON_SPEC.sanitizers.find((s) => s.id === id)?.cwes);
    expect(clean("int(x)")).toEqual(["*"]);
    expect(clean("import uuid\nuuid.UUID(x)")).toEqual(["*"]);
    expect(clean("import shlex\nshlex.quote(x)")).toEqual([["CWE-78"]]);
    expect(clean("import html\nhtml.escape(x)")).toEqual([["CWE-79"]]);
    expect(clean("from markupsafe import escape\nescape(x)")).toEqual([["CWE-79"]]);
    expect(clean("import re\nre.escape(x)")).toEqual([]);
    expect(clean("import os\nos.path.basename(x)")).toEqual([["CWE-22"]]);
    expect(clean("from werkzeug.utils import secure_filename\nsecure_filename(x)")).toEqual([["CWE-22"]]);
    expect(clean("from ldap.filter import escape_filter_chars\nescape_filter_chars(x)")).toEqual([["CWE-90"]]);
    const quoted = clean("from urllib.parse import quote\nquote(x)")[0];
    expect(quoted).toContain("CWE-79");
    expect(quoted).not.toContain("CWE-22");
    expect(quoted).not.toContain("CWE-601");
  });

  it("lists the container mutators", () => {
    expect(PYTHON_SPEC.mutators).toEqual(
      expect.arrayContaining(["append", "extend", "insert", "add", "update", "setdefault", "write", "put"]),
    );
  });
});
