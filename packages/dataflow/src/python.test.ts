// The Python lowering: statements, functions and classes, and framework parameters (sources).
import { lower, strip, moduleBody, fn } from "../test/python-lowering";

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
      'match cmd:\n    case "a" | "b":\n        x()\n    case [first, *rest]:\n        y(first)\n    case other if other:\n        z()\n    case _:\n' +
        "        w()\n",
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
      "class Repo(Base, Mixin, metaclass=Meta):\n    table = 'users'\n    limit: int\n    MAX: Final = 3\n    def __init__(self, db):\n" +
        "        self.db = db\n    @staticmethod\n    def make():\n        return Repo(None)\n    @classmethod\n    def build(cls, x):\n" +
        "        def helper(z):\n            return z\n        return cls(x)\n    register(table)\n",
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
      "from fastapi import FastAPI, Depends, Request\napp = FastAPI()\n@app.get('/items/{item_id}')\n" +
        "async def read(item_id: int, q: str, request: Request, db = Depends(get_db), user: Annotated[User, Depends(current)] = None):\n    pass\n",
    );
    // `item_id: int` is converted and validated by FastAPI: a number, converted first in the body.
    expect(fn(m, "read").sourceParams).toEqual([{ index: 1, label: "route parameter `q`" }]);
    expect(strip(fn(m, "read").body[0])).toMatchObject({
      k: "assign",
      target: { k: "var", name: "item_id" },
      value: { k: "call", callee: "int", path: "int", args: [{ k: "var", name: "item_id" }] },
    });
  });

  it("marks Flask route parameters", () => {
    const m = lower(
      "from flask import Flask\napp = Flask(__name__)\n@app.route('/users/<int:id>')\ndef show(id):\n    pass\n@bp.get('/x/<name>')\ndef other(name):\n" +
        "    pass\n",
    );
    // `<int:id>` only matches digits: a number, not a source.
    expect(fn(m, "show").sourceParams).toBeUndefined();
    expect(strip(fn(m, "show").body[0])).toMatchObject({ k: "assign", target: { name: "id" }, value: { callee: "int" } });
    expect(fn(m, "other").sourceParams).toEqual([{ index: 0, label: "URL path parameter `name`" }]);
  });

  it("marks Django view parameters after request, in functions and class-based views", () => {
    const m = lower(
      "def detail(request, pk, slug):\n    pass\nclass V(View):\n    def get(self, request, pk):\n        pass\n    def helper(self, request, x):\n" +
        "        pass\n",
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
