import type { ClassIR, Expr, FunctionIR, ModuleIR, Stmt } from "./ir";
import { lowerJavaScript } from "./javascript";

function lower(
  source: string,
  language: "javascript" | "typescript" = "javascript",
  file = language === "javascript" ? "app.js" : "app.ts",
): ModuleIR {
  return lowerJavaScript(file, source, language);
}

/** The IR without locations, for whole-shape comparisons. */
function strip<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (k, v: unknown) => (k === "loc" ? undefined : v))) as T;
}

function fn(m: ModuleIR, name: string): FunctionIR {
  const found = m.functions.find((f) => f.name === name);
  if (!found) throw new Error(`no function ${name} in ${m.functions.map((f) => f.name).join(", ")}`);
  return found;
}

function cls(m: ModuleIR, name: string): ClassIR {
  const found = m.classes.find((c) => c.name === name);
  if (!found) throw new Error(`no class ${name}`);
  return found;
}

function moduleBody(source: string, language: "javascript" | "typescript" = "javascript"): Stmt[] {
  return strip(fn(lower(source, language), "<module>").body);
}

/** The value of the last statement: an assignment's value or an expression statement's expression. */
function lastValue(source: string, language: "javascript" | "typescript" = "javascript"): Expr {
  const body = moduleBody(source, language);
  const last = body[body.length - 1];
  if (last?.k === "assign") return last.value;
  if (last?.k === "expr") return last.expr;
  throw new Error(`no value in ${JSON.stringify(last)}`);
}

function callOf(source: string, language: "javascript" | "typescript" = "javascript"): Extract<Expr, { k: "call" }> {
  const e = lastValue(source, language);
  if (e.k !== "call") throw new Error(`not a call: ${JSON.stringify(e)}`);
  return e;
}

const v = (name: string) => ({ k: "var", name });
const c = (value: string | number | boolean | null) => ({ k: "const", value });

describe("lowerJavaScript: declarations and assignments", () => {
  it("lowers declarations with and without initialisers, marking them as declarations", () => {
    expect(moduleBody("let a; const b = 1, c = a;")).toEqual([
      { k: "declare", name: "a" },
      { k: "assign", target: v("b"), value: c(1), op: "=", decl: true },
      { k: "assign", target: v("c"), value: v("a"), op: "=", decl: true },
    ]);
  });

  it("lowers object and array destructuring, nested, with defaults and rest, to destructure targets", () => {
    const [stmt] = moduleBody("const { a, b: { c }, d = 1, ...rest } = obj; ");
    expect(stmt).toEqual({
      k: "assign",
      target: { k: "destructure", targets: [v("a"), { k: "destructure", targets: [v("c")] }, v("d"), v("rest")] },
      value: v("obj"),
      op: "=",
      decl: true,
    });
    const [arr] = moduleBody("[x, , ...ys] = list;");
    expect(arr).toMatchObject({ k: "assign", target: { k: "destructure", targets: [v("x"), v("ys")] }, value: v("list"), op: "=" });
  });

  it("keeps compound and logical assignment operators and member/subscript targets", () => {
    expect(moduleBody("s += t; x ||= y; z ??= w;").map((s) => (s.k === "assign" ? s.op : s.k))).toEqual(["+=", "||=", "??="]);
    expect(moduleBody("obj.a.b = 1;")[0]).toMatchObject({
      target: { k: "field", name: "b", path: "obj.a.b", object: { k: "field", name: "a", path: "obj.a" } },
    });
    expect(moduleBody("obj[key] = 1;")[0]).toMatchObject({ target: { k: "index", object: v("obj"), index: v("key") } });
  });

  it("lowers ++/-- statements as compound assignments", () => {
    expect(moduleBody("i++; --j;")).toEqual([
      { k: "assign", target: v("i"), value: c(1), op: "+=" },
      { k: "assign", target: v("j"), value: c(1), op: "-=" },
    ]);
  });

  it("hoists assignments nested in expressions in front of their statement", () => {
    expect(moduleBody("x = y = req.query.a;")).toEqual([
      {
        k: "assign",
        target: v("y"),
        value: { k: "field", object: { k: "field", object: v("req"), name: "query", path: "req.query" }, name: "a", path: "req.query.a" },
        op: "=",
      },
      { k: "assign", target: v("x"), value: v("y"), op: "=" },
    ]);
  });
});

describe("lowerJavaScript: expressions", () => {
  it("lowers literals to constants", () => {
    expect(lastValue(String.raw`x = "a\tb\u0041";`)).toEqual(c("a\tbA"));
    expect(lastValue("x = 0x10;")).toEqual(c(16));
    expect(lastValue("x = true;")).toEqual(c(true));
    expect(lastValue("x = null;")).toEqual(c(null));
    expect(lastValue("x = undefined;")).toEqual(c(null));
    expect(lastValue("x = `plain`;")).toEqual(c("plain"));
  });

  it("lowers template literals with substitutions to templates", () => {
    expect(lastValue("x = `a ${b} c`;")).toEqual({ k: "template", parts: [c("a "), v("b"), c(" c")] });
  });

  it("lowers member chains to fields with a dotted path, computed access to index", () => {
    expect(lastValue("x = req.query.id;")).toEqual({
      k: "field",
      object: { k: "field", object: v("req"), name: "query", path: "req.query" },
      name: "id",
      path: "req.query.id",
    });
    expect(lastValue("x = a[i];")).toEqual({ k: "index", object: v("a"), index: v("i") });
    expect(lastValue('x = req["body"];')).toMatchObject({ k: "field", name: "body", path: "req.body" });
    expect(lastValue("x = f().y;")).toEqual({ k: "field", object: expect.objectContaining({ k: "call", callee: "f" }), name: "y" });
    expect(lastValue("x = this.a;")).toEqual({ k: "field", object: { k: "this" }, name: "a", path: "this.a" });
  });

  it("treats optional chaining like plain access and calls", () => {
    expect(lastValue("x = a?.b?.c;")).toMatchObject({ k: "field", name: "c", path: "a.b.c" });
    expect(callOf("a?.b?.(c);")).toMatchObject({ callee: "b", receiver: v("a"), args: [v("c")], path: "a.b" });
  });

  it("lowers operators, conditionals and await", () => {
    expect(lastValue("x = a ?? b;")).toEqual({ k: "binary", op: "||", left: v("a"), right: v("b") });
    expect(lastValue("x = a + 1;")).toEqual({ k: "binary", op: "+", left: v("a"), right: c(1) });
    expect(lastValue("x = !a;")).toEqual({ k: "unary", op: "!", arg: v("a") });
    expect(lastValue("x = typeof a;")).toEqual({ k: "unary", op: "typeof", arg: v("a") });
    expect(lastValue("x = a ? b : c;")).toEqual({ k: "cond", test: v("a"), then: v("b"), else: v("c") });
    expect(lastValue("async function f() { return 1; } x = await (y);")).toEqual(v("y"));
  });

  it("lowers arrays and objects, spreads becoming unknown parts and methods lambdas", () => {
    expect(lastValue("x = [a, ...b];")).toEqual({ k: "array", items: [v("a"), { k: "unknown", parts: [v("b")] }] });
    const obj = lastValue("x = { a: 1, 'b': c, d, [k]: e, ...f, m() {} };");
    expect(obj).toEqual({
      k: "object",
      entries: [
        { key: "a", value: c(1) },
        { key: "b", value: v("c") },
        { key: "d", value: v("d") },
        { key: null, value: v("e") },
        { key: null, value: { k: "unknown", parts: [v("f")] } },
        { key: "m", value: { k: "lambda", name: "m" } },
      ],
    });
  });

  it("lowers sequences to unknown and new expressions to new", () => {
    expect(lastValue("x = (a, b);")).toEqual({ k: "unknown", parts: [v("a"), v("b")] });
    expect(lastValue("x = new ns.Thing(a);")).toMatchObject({ k: "new", cls: "Thing", args: [v("a")] });
  });

  it("lowers tagged templates to a call with the strings and then each substitution", () => {
    expect(callOf("sql`SELECT ${id} FROM t`;")).toMatchObject({
      callee: "sql",
      args: [{ k: "array", items: [c("SELECT "), c(" FROM t")] }, v("id")],
    });
  });
});

describe("lowerJavaScript: calls and imports", () => {
  it("gives method calls their name, receiver and dotted path; plain calls a null receiver", () => {
    expect(callOf("res.send(x);")).toMatchObject({
      callee: "send",
      receiver: v("res"),
      args: [v("x")],
      path: "res.send",
      text: "res.send(x)",
    });
    expect(callOf("eval(x);")).toMatchObject({ callee: "eval", receiver: null, path: "eval" });
  });

  it("resolves CommonJS requires, whole, destructured and by member", () => {
    const m = lower(
      'const cp = require("child_process");\nconst { exec, spawn: sp } = require("child_process");\nconst run = require("child_process").execSync;',
    );
    expect(m.imports).toMatchObject({
      cp: "child_process",
      exec: "child_process.exec",
      sp: "child_process.spawn",
      run: "child_process.execSync",
    });
    expect(callOf('const cp = require("child_process"); cp.exec(x);')).toMatchObject({
      callee: "exec",
      receiver: v("cp"),
      path: "child_process.exec",
    });
    expect(callOf('const { exec } = require("child_process"); exec(x);')).toMatchObject({
      callee: "exec",
      receiver: null,
      path: "child_process.exec",
    });
    expect(callOf('require("child_process").exec(x);')).toMatchObject({ callee: "exec", path: "child_process.exec" });
  });

  it("resolves ESM imports (default, named with alias, namespace) and strips node:", () => {
    const m = lower(
      'import fs from "fs";\nimport * as cp from "node:child_process";\nimport { exec as run, execSync } from "node:child_process";',
    );
    expect(m.imports).toEqual({ fs: "fs", cp: "child_process", run: "child_process.exec", execSync: "child_process.execSync" });
    expect(callOf('import { exec as run } from "node:child_process"; run(x);')).toMatchObject({
      callee: "exec",
      receiver: null,
      path: "child_process.exec",
    });
    expect(callOf('import fetch from "node-fetch"; fetch(u);')).toMatchObject({ callee: "fetch", path: "node-fetch" });
  });

  it("resolves TypeScript import-require and compiled `(0, mod.fn)(…)` calls", () => {
    expect(callOf('import cp = require("child_process"); cp.exec(x);', "typescript")).toMatchObject({ path: "child_process.exec" });
    expect(callOf('const child_process_1 = require("child_process"); (0, child_process_1.exec)(cmd);')).toMatchObject({
      callee: "exec",
      path: "child_process.exec",
      args: [v("cmd")],
    });
  });

  it("passes a function literal argument as a lambda naming its own FunctionIR", () => {
    const m = lower('app.get("/x", (req, res) => { res.send(req.query.id); });');
    const call = strip(fn(m, "<module>").body[0]);
    expect(call).toMatchObject({ k: "expr", expr: { k: "call", callee: "get", args: [c("/x"), { k: "lambda" }] } });
    const name = call?.k === "expr" && call.expr.k === "call" && call.expr.args[1]?.k === "lambda" ? call.expr.args[1].name : "";
    expect(name).toMatch(/^<lambda@1:15>$/);
    const handler = fn(m, name);
    expect(handler.params).toEqual([{ name: "req" }, { name: "res" }]);
    expect(handler.sourceParams).toEqual([{ index: 0, label: "HTTP request (`req`)" }]);
    expect(strip(handler.body)).toMatchObject([{ k: "expr", expr: { k: "call", callee: "send" } }]);
  });

  it("names function literals after the variable or property they are assigned to", () => {
    const m = lower(
      "const helper = (x) => x;\nexports.show = function (a) { return a; };\nconst alias = function inner() {};\nmodule.exports = function () {};",
    );
    expect(fn(m, "helper").body).toMatchObject([{ k: "return", value: v("x") }]);
    expect(fn(m, "show").params).toEqual([{ name: "a" }]);
    expect(fn(m, "alias")).toBeDefined();
    expect(m.functions.map((f) => f.name)).toContain("<lambda@4:18>");
    expect(callOf("(function () { go(); })();").callee).toMatch(/^<lambda@1:2>$/);
    // Same-named literals in different scopes keep the name: a call by that name reaches both.
    const twice = lower("function a() { const cb = () => 1; cb(); }\nfunction b() { const cb = () => 2; cb(); }");
    expect(twice.functions.filter((f) => f.name === "cb")).toHaveLength(2);
  });
});

describe("lowerJavaScript: framework handlers", () => {
  const sources = (src: string, name?: string, language: "javascript" | "typescript" = "javascript") => {
    const m = lower(src, language);
    const target = name ? fn(m, name) : m.functions.find((f) => f.name !== "<module>");
    return target?.sourceParams;
  };

  it("marks the request parameter of route handlers, also when passed by name or wrapped", () => {
    expect(sources("router.post('/a', auth, handler);\nfunction handler(request, response) {}", "handler")).toEqual([
      { index: 0, label: "HTTP request (`request`)" },
    ]);
    expect(sources("app.use((err, req, res, next) => {});")).toEqual([{ index: 1, label: "HTTP request (`req`)" }]);
    expect(sources("fastify.get('/', async (request, reply) => {});")).toEqual([{ index: 0, label: "HTTP request (`request`)" }]);
    expect(sources("fastify.route({ method: 'GET', url: '/', handler: async (request) => {} });", "handler")).toEqual([
      { index: 0, label: "HTTP request (`request`)" },
    ]);
    expect(sources("router.get('/', asyncHandler(async (q, s) => {}));")).toEqual([{ index: 0, label: "HTTP request (`q`)" }]);
  });

  it("marks Koa middleware ctx, Next.js API routes and App Router handlers", () => {
    expect(sources("app.use(async (ctx, next) => { await next(); });")).toEqual([{ index: 0, label: "HTTP request (`ctx`)" }]);
    expect(sources("export default function handler(req, res) {}", "handler")).toEqual([{ index: 0, label: "HTTP request (`req`)" }]);
    expect(sources("export async function GET(request: Request) {}", "GET", "typescript")).toEqual([
      { index: 0, label: "HTTP request (`request`)" },
    ]);
    expect(sources("export const POST = async (request, { params }) => {};", "POST")).toEqual([
      { index: 0, label: "HTTP request (`request`)" },
      { index: 1, label: expect.stringContaining("route parameters") },
    ]);
  });

  it("marks NestJS parameters bound by request decorators", () => {
    const src = "class C {\n  @Get(':id')\n  find(@Param('id') id: string, @Query() q: Dto, limit: number) {}\n}";
    expect(sources(src, "find", "typescript")).toEqual([
      { index: 0, label: "NestJS @Param parameter `id`" },
      { index: 1, label: "NestJS @Query parameter `q`" },
    ]);
  });

  it("leaves ordinary functions and callbacks alone", () => {
    expect(sources("function add(a, b) { return a + b; }", "add")).toBeUndefined();
    expect(sources("items.map((item) => item.id);")).toBeUndefined();
    expect(sources("export function GETTER(x) {}", "GETTER")).toBeUndefined();
    expect(sources("cache.get('k', (req) => {});")).toBeUndefined();
  });
});

describe("lowerJavaScript: classes and functions", () => {
  const source = `
    class Repo extends base.Model {
      static table = "users";
      conn = null;
      handle = (e) => this.run(e);
      constructor(db) { super(db); this.db = db; }
      static create() { return new Repo(null); }
      get size() { return 1; }
      run(sql) { return this.db.query(sql); }
    }`;

  it("lowers classes to ClassIR with superclass and fields", () => {
    const m = lower(source);
    expect(strip(cls(m, "Repo"))).toEqual({
      name: "Repo",
      superclass: "Model",
      fields: [
        { name: "table", value: c("users"), isStatic: true, isFinal: false },
        { name: "conn", value: c(null), isStatic: false, isFinal: false },
        { name: "handle", value: { k: "lambda", name: "handle" }, isStatic: false, isFinal: false },
      ],
    });
  });

  it("lowers methods to FunctionIRs of the class, constructor as <init>", () => {
    const m = lower(source);
    expect(fn(m, "<init>")).toMatchObject({ cls: "Repo", isConstructor: true, params: [{ name: "db" }] });
    expect(fn(m, "create")).toMatchObject({ cls: "Repo", isStatic: true });
    expect(fn(m, "size")).toMatchObject({ cls: "Repo", params: [] });
    expect(strip(fn(m, "run").body)).toEqual([
      {
        k: "return",
        value: {
          k: "call",
          callee: "query",
          receiver: { k: "field", object: { k: "this" }, name: "db", path: "this.db" },
          args: [v("sql")],
          path: "this.db.query",
          text: "this.db.query(sql)",
        },
      },
    ]);
    expect(fn(m, "handle")).toMatchObject({ cls: "Repo", params: [{ name: "e" }] });
  });

  it("destructures parameters in a prologue under a generated name", () => {
    const f = fn(lower("function f({ a, b }, [c2]) { return a; }"), "f");
    expect(f.params).toEqual([{ name: "<param0>" }, { name: "<param1>" }]);
    expect(strip(f.body.slice(0, 2))).toEqual([
      { k: "assign", target: { k: "destructure", targets: [v("a"), v("b")] }, value: v("<param0>"), op: "=", decl: true },
      { k: "assign", target: { k: "destructure", targets: [v("c2")] }, value: v("<param1>"), op: "=", decl: true },
    ]);
  });
});

describe("lowerJavaScript: statements", () => {
  it("lowers if/else chains and blocks", () => {
    expect(moduleBody("if (a) b(); else if (c) { d(); } else e();")).toMatchObject([
      { k: "if", test: v("a"), then: [{ k: "expr" }], else: [{ k: "if", test: v("c"), then: [{ k: "expr" }], else: [{ k: "expr" }] }] },
    ]);
    expect(moduleBody("{ a(); }")).toMatchObject([{ k: "block", body: [{ k: "expr" }] }]);
  });

  it("lowers while, do-while and for loops", () => {
    expect(moduleBody("while (true) { break; }")).toEqual([
      { k: "loop", kind: "while", test: c(true), init: [], update: [], body: [{ k: "break" }] },
    ]);
    expect(moduleBody("do { continue; } while (x);")).toEqual([
      { k: "loop", kind: "do", test: v("x"), init: [], update: [], body: [{ k: "continue" }] },
    ]);
    expect(moduleBody("for (let i = 0; i < n; i++) f(i);")).toMatchObject([
      {
        k: "loop",
        kind: "for",
        test: { k: "binary", op: "<" },
        init: [{ k: "assign", target: v("i"), decl: true }],
        update: [{ k: "assign", op: "+=" }],
        body: [{ k: "expr" }],
      },
    ]);
    expect(moduleBody("for (;;) {}")).toMatchObject([{ k: "loop", kind: "for", test: null }]);
  });

  it("lowers for-of and for-in to foreach loops binding each element", () => {
    expect(moduleBody("for (const [k, val] of Object.entries(o)) use(val);")).toMatchObject([
      {
        k: "loop",
        kind: "foreach",
        test: null,
        each: { target: { k: "destructure", targets: [v("k"), v("val")] }, iterable: { k: "call", callee: "entries" } },
        body: [{ k: "expr" }],
      },
    ]);
    expect(moduleBody("for (key in obj) {}")).toMatchObject([
      { k: "loop", kind: "foreach", each: { target: v("key"), iterable: v("obj") } },
    ]);
  });

  it("re-runs an assignment nested in a loop condition at the end of each iteration", () => {
    const [pre, loop] = moduleBody("while ((m = re.exec(s)) !== null) { out.push(m); }");
    expect(pre).toMatchObject({ k: "assign", target: v("m") });
    expect(loop).toMatchObject({ k: "loop", kind: "while", body: [{ k: "expr" }, { k: "assign", target: v("m") }] });
  });

  it("lowers switch with fall-through cases and a default", () => {
    expect(moduleBody("switch (t) { case 1: case 'a': f(); break; default: g(); }")).toMatchObject([
      {
        k: "switch",
        test: v("t"),
        cases: [
          { values: [c(1)], body: [] },
          { values: [c("a")], body: [{ k: "expr" }, { k: "break" }] },
          { values: null, body: [{ k: "expr" }] },
        ],
      },
    ]);
  });

  it("lowers try/catch/finally, return, throw and labels", () => {
    expect(moduleBody("try { a(); } catch (e) { b(e); } finally { c(); }")).toMatchObject([
      { k: "try", body: [{ k: "expr" }], handlers: [{ param: "e", body: [{ k: "expr" }] }], finally: [{ k: "expr" }] },
    ]);
    expect(moduleBody("try { a(); } catch { }")).toMatchObject([{ k: "try", handlers: [{ param: null, body: [] }], finally: [] }]);
    expect(strip(fn(lower("function f(x) { if (x) throw new Error(x); return; }"), "f").body)).toMatchObject([
      { k: "if", then: [{ k: "throw", value: { k: "new", cls: "Error" } }] },
      { k: "return", value: null },
    ]);
    expect(moduleBody("outer: for (const a of b) { continue outer; }")).toMatchObject([
      { k: "loop", kind: "foreach", body: [{ k: "continue" }] },
    ]);
  });
});

describe("lowerJavaScript: TypeScript", () => {
  it("ignores type annotations, interfaces and type aliases, keeping simple parameter types", () => {
    const m = lower(
      "interface A { x: number }\ntype B = string;\nfunction f(req: express.Request<P>, n?: number, ...rest: string[]): void { const y: B = req.body; }",
      "typescript",
    );
    expect(fn(m, "<module>").body).toEqual([]);
    const f = fn(m, "f");
    expect(f.params).toEqual([{ name: "req", type: "Request" }, { name: "n", type: "number" }, { name: "rest" }]);
    expect(strip(f.body)).toEqual([
      { k: "assign", target: v("y"), value: { k: "field", object: v("req"), name: "body", path: "req.body" }, op: "=", decl: true },
    ]);
  });

  it("lowers as, satisfies, non-null and angle-bracket casts to cast", () => {
    expect(lastValue("x = a as string;", "typescript")).toEqual({ k: "cast", arg: v("a") });
    expect(lastValue("x = a!;", "typescript")).toEqual({ k: "cast", arg: v("a") });
    expect(lastValue("x = <T>a satisfies U;", "typescript")).toEqual({ k: "cast", arg: { k: "cast", arg: v("a") } });
  });

  it("turns parameter properties into fields set by the constructor, and reads implements", () => {
    const m = lower("class S extends Base implements I, J { constructor(private readonly db: Db) { super(); } }", "typescript");
    expect(strip(cls(m, "S"))).toEqual({
      name: "S",
      superclass: "Base",
      interfaces: ["I", "J"],
      fields: [{ name: "db", value: null, isStatic: false, isFinal: true }],
    });
    expect(strip(fn(m, "<init>").body[0])).toEqual({
      k: "assign",
      target: { k: "field", object: { k: "this" }, name: "db", path: "this.db" },
      value: v("db"),
      op: "=",
    });
  });
});

describe("lowerJavaScript: odd input", () => {
  it("never throws on broken code, and keeps what it can read", () => {
    const m = lower("function ok(a) { exec(a); }\nconst x = ;\nif (( {\nfoo(bar(");
    expect(strip(fn(m, "ok").body)).toMatchObject([{ k: "expr", expr: { k: "call", callee: "exec" } }]);
    expect(() => lower("")).not.toThrow();
    expect(() => lower("}}}{{{ ))) class { extends", "typescript")).not.toThrow();
    expect(() => lower("x = " + Array(5000).fill("a").join(" + ") + ";")).not.toThrow();
  });

  it("reads JSX with the javascript grammar and .tsx with the TSX grammar", () => {
    const jsx = lower("const el = <div onClick={() => go(x)}>{y}</div>;", "javascript", "app.jsx");
    expect(jsx.functions.some((f) => f.body.some((s) => s.k === "return" && s.value?.k === "call" && s.value.callee === "go"))).toBe(true);
    const tsx = lower(
      "export default function P({ q }: { q: string }) { return <a href={q as string}>{run(q)}</a>; }",
      "typescript",
      "page.tsx",
    );
    expect(JSON.stringify(fn(tsx, "P").body)).toContain('"callee":"run"');
  });

  it("reports 1-based lines and columns (end column just past the node, as the other lowerings do)", () => {
    const [stmt] = fn(lower("\n  foo(1);"), "<module>").body;
    expect(stmt?.loc).toEqual({ line: 2, column: 3, endLine: 2, endColumn: 9 });
  });
});
