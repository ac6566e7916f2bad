/**
 * Configuration loaded from a file of the repository, resolved to the file's values
 * (config-files.ts parses and finds them). The loads it knows:
 * - Java `props.load(in)` where `in` names a bundled file (`getResourceAsStream("/x.properties")`,
 *   `new FileInputStream("config/app.properties")`): the receiver's entries become the file's;
 * - Python `config.read(path)` / `config.read_file(open(path))` (configparser) and
 *   `json.load(open(path))`, the path relative or built from `__file__`;
 * - JavaScript `require("./config.json")` and `JSON.parse(fs.readFileSync(path.join(__dirname, "config.json")))`.
 * Lookups then resolve through the value's `keys`: `getProperty(k)`, `config.get(s, k)`,
 * `config[s][k]`, `cfg.key` (source-policy.ts `bundledLookup`, and the interpreter's keyed reads).
 * A Java field or Python/JavaScript module global loaded once (a static block, module-level code)
 * is resolved the same way from the statements that load it (`globalConfig`).
 */
import type { CallParts } from "./call-parts";
import type { Env } from "./fold";
import type { Expr, FunctionIR, ModuleIR, Stmt } from "./ir";
import type { Program } from "./program";
import { BUNDLED, bundledState, refOf } from "./source-policy";
import type { ConfigFiles } from "./config-files";
import { constant, EMPTY, type Value } from "./values";

type Call = Extract<Expr, { k: "call" }>;
type Format = "properties" | "ini" | "json";

/** The format a loading call reads into its receiver (`into`) or returns (`result`). */
function loadKind(language: string, e: Call): { format: Format; into: boolean } | undefined {
  if (language === "java") return e.callee === "load" && e.receiver ? { format: "properties", into: true } : undefined;
  if (language === "python") {
    if ((e.callee === "read" || e.callee === "read_file") && e.receiver) return { format: "ini", into: true };
    if (e.path === "json.load" || e.path === "json.loads") return { format: "json", into: false };
    return undefined;
  }
  if (e.callee === "require" && !e.receiver) return { format: "json", into: false };
  if (e.path === "JSON.parse") return { format: "json", into: false };
  return undefined;
}

function refOfLoad(language: string, e: Call, c: Pick<CallParts, "args">): string | undefined {
  if (language === "javascript" || language === "typescript") {
    if (e.callee === "require") {
      const spec = e.args[0]?.k === "const" ? e.args[0].value : undefined;
      return typeof spec === "string" && /^\.\.?\//.test(spec) && spec.endsWith(".json") ? `mod:${spec}` : undefined;
    }
  }
  return refOf(e.args[0], c.args[0]);
}

/**
 * At a call: loads a configuration file's values. Into the receiver's variable in `env` (Java,
 * configparser) — undefined is returned — or as the call's value (JSON).
 */
export function loadConfig(
  language: string,
  module: ModuleIR,
  c: CallParts,
  configs: ConfigFiles | undefined,
  env: Env,
): Value | undefined {
  if (!configs?.size) return undefined;
  const kind = loadKind(language, c.e);
  if (!kind) return undefined;
  const ref = refOfLoad(language, c.e, c);
  const loaded = ref ? configs.load(ref, module.file, kind.format) : undefined;
  if (!loaded) return undefined;
  if (!kind.into) return { ...loaded, state: BUNDLED };
  const r = c.e.receiver;
  if (r?.k === "var" && env.has(r.name)) {
    const old = env.get(r.name) ?? EMPTY;
    env.set(r.name, { ...old, keys: new Map([...(old.keys ?? []), ...(loaded.keys ?? [])]) });
  }
  return undefined;
}

/**
 * A Java field or a module global that code loads configuration into once — in a static block or
 * constructor (`PROPS.load(Foo.class.getResourceAsStream("/x.properties"))`), at module level
 * (`config.read(...)` after `config = ConfigParser()`) — or that its initialiser loads
 * (`const cfg = require("./config.json")`): its value, with the file's entries. Undefined otherwise.
 */
export function globalConfig(
  program: Program,
  configs: ConfigFiles | undefined,
  key: string,
  init: Expr | null | undefined,
  language: string,
): Value | undefined {
  if (!configs?.size) return undefined;
  if (configs.globals.has(key)) return configs.globals.get(key);
  const found = resolveGlobal(program, configs, key, init, language);
  configs.globals.set(key, found);
  return found;
}

function resolveGlobal(
  program: Program,
  configs: ConfigFiles,
  key: string,
  init: Expr | null | undefined,
  language: string,
): Value | undefined {
  const global = key.indexOf("::");
  const moduleFile = global >= 0 ? key.slice(0, global) : undefined;
  const name = global >= 0 ? key.slice(global + 2) : key.slice(key.lastIndexOf(".") + 1);
  const fns: FunctionIR[] = [];
  let module: ModuleIR | undefined;
  if (moduleFile !== undefined) {
    const top = program.byModule.get(moduleFile)?.get("<module>")?.[0];
    if (top) fns.push(top.fn);
    module = top?.module;
  } else {
    const owner = key.slice(0, key.lastIndexOf("."));
    for (const refs of program.byClass.get(owner)?.values() ?? [])
      for (const r of refs) {
        if (r.fn.name !== "<clinit>" && !r.fn.isConstructor && r.fn.name !== "<init>") continue;
        fns.push(r.fn);
        module = r.module;
      }
  }
  if (!module) return undefined;
  if (init?.k === "call") {
    const direct = staticLoad(language, module, configs, init, new Map());
    if (direct) return direct;
  }
  for (const fn of fns) {
    const assigns = new Map<string, Expr>();
    const found = findLoad(fn.body, name, assigns, (e) => staticLoadInto(language, module, configs, e, assigns));
    if (found) return { facts: [], keys: found.keys ?? new Map(), state: BUNDLED };
  }
  return undefined;
}

/** The first load into `name` among the statements (and the blocks inside them), with the locals assigned before it. */
function findLoad(
  stmts: readonly Stmt[],
  name: string,
  assigns: Map<string, Expr>,
  load: (e: Call) => Value | undefined,
): Value | undefined {
  for (const s of stmts) {
    let found: Value | undefined;
    if (s.k === "assign" && s.target.k === "var") assigns.set(s.target.name, s.value);
    else if (s.k === "expr" && s.expr.k === "call" && s.expr.receiver?.k === "var" && s.expr.receiver.name === name) found = load(s.expr);
    else if (s.k === "expr" && s.expr.k === "call" && s.expr.receiver?.k === "field" && s.expr.receiver.name === name) found = load(s.expr);
    else if (s.k === "try") found = findLoad(s.body, name, assigns, load);
    else if (s.k === "block") found = findLoad(s.body, name, assigns, load);
    else if (s.k === "if") found = findLoad(s.then, name, assigns, load) ?? findLoad(s.else, name, assigns, load);
    if (found) return found;
  }
  return undefined;
}

function staticLoadInto(language: string, module: ModuleIR, configs: ConfigFiles, e: Call, assigns: Map<string, Expr>): Value | undefined {
  const kind = loadKind(language, e);
  if (!kind?.into) return undefined;
  const parts = staticParts(language, e, assigns, 0);
  const ref = refOfLoad(language, e, parts);
  return ref ? configs.load(ref, module.file, kind.format) : undefined;
}

function staticLoad(language: string, module: ModuleIR, configs: ConfigFiles, e: Call, assigns: Map<string, Expr>): Value | undefined {
  const kind = loadKind(language, e);
  if (!kind || kind.into) return undefined;
  const ref = refOfLoad(language, e, staticParts(language, e, assigns, 0));
  const loaded = ref ? configs.load(ref, module.file, kind.format) : undefined;
  return loaded ? { ...loaded, state: BUNDLED } : undefined;
}

function staticParts(language: string, e: Call, assigns: Map<string, Expr>, depth: number): CallParts {
  const args = e.args.map((a) => staticValue(language, a, assigns, depth + 1));
  return { e, receiver: null, args, kwargs: new Map() };
}

/** What an expression evaluates to without the interpreter: constants, and the bundled state of path and resource calls. */
function staticValue(language: string, e: Expr, assigns: Map<string, Expr>, depth: number): Value {
  if (depth > 6) return EMPTY;
  if (e.k === "const") return constant(e.value);
  if (e.k === "var") {
    const a = assigns.get(e.name);
    return a ? staticValue(language, a, new Map([...assigns].filter(([k]) => k !== e.name)), depth + 1) : EMPTY;
  }
  if (e.k === "cast") return staticValue(language, e.arg, assigns, depth + 1);
  if (e.k === "call" || e.k === "new") {
    const call: Call =
      e.k === "call" ? e : { k: "call", callee: e.cls, receiver: null, args: e.args, path: e.cls, loc: e.loc, text: e.text };
    const parts = staticParts(language, call, assigns, depth);
    const state = bundledState(language === "typescript" ? "javascript" : language, parts, e.k === "new").result;
    return state ? { facts: [], state } : EMPTY;
  }
  return EMPTY;
}

/** Where the parts of a built value were read from (`"AES/" + mode + "/PKCS5Padding"`): the configuration files and keys of its variables. */
export function fromOfParts(e: Expr, env: Env, depth = 0): string | undefined {
  if (depth > 8) return undefined;
  if (e.k === "var") return env.get(e.name)?.konst?.from;
  const parts = e.k === "binary" ? [e.left, e.right] : e.k === "template" ? e.parts : e.k === "cast" ? [e.arg] : [];
  const found = parts.map((p) => fromOfParts(p, env, depth + 1)).filter((f): f is string => f !== undefined);
  return found.length ? [...new Set(found)].join(", ") : undefined;
}
