/**
 * Abstract interpretation of one function: walks its statements with an environment of
 * abstract values (values.ts), folding constants so that a branch whose condition is a
 * constant is not entered, and follows taint through assignments, concatenation,
 * formatting, collections, fields and calls. Calls to functions of the repository use their
 * summaries (what reaches their return value and which parameters reach a sink); the
 * summary of this function is what `run` returns.
 */
import type { TraceStep } from "@ax/contracts";
import type { Expr, FunctionIR, LValue, Loc, ModuleIR, Stmt } from "./ir";
import { chainPath } from "./lower-util";
import type { FnRef, Program } from "./program";
import type { CallPattern, LanguageSpec, SinkRule } from "./spec";
import { constOf, fold, FOLDABLE, joinEnv, truthy, truthyConst, type Env } from "./fold";
import { combine, constant, EMPTY, mergeFacts, sanitized, withStep, appendSteps, join, type Fact, type Value } from "./values";

export interface SinkSummary {
  /** A parameter index, or the key of a field read as an implicit parameter. */
  param: number | string;
  rule: SinkRule;
  file: string;
  loc: Loc;
  /** From the function's entry (parameter) to the sink, sink step included. */
  steps: readonly TraceStep[];
}

export interface Summary {
  ret: Value;
  sinks: SinkSummary[];
  /** Parameters (and implicit field parameters) this function stores into fields: a setter, a constructor. */
  fieldWrites: { key: string; facts: Fact[] }[];
}

export interface Hit {
  fact: Fact;
  rule: SinkRule;
  file: string;
  loc: Loc;
  steps: readonly TraceStep[];
}

export interface Shared {
  program: Program;
  specs: ReadonlyMap<string, LanguageSpec>;
  /** Looked up through `get` only: the engine records which summaries a function read. */
  summaries: Pick<ReadonlyMap<string, Summary>, "get">;
  /**
   * Adds source-origin facts to the repository-wide store of a field or module global
   * (flow-insensitive). Write-only: what a function gives never depends on the store.
   */
  store: (key: string, sources: Fact[]) => void;
  lines: (file: string) => readonly string[];
  onHit: (hit: Hit) => void;
  /** Keys of functions some call resolved to: the others are entry points. */
  called: Set<string>;
}

interface Exits {
  breaks: Env[];
  continues: Env[];
}

export class FunctionInterpreter {
  private readonly spec: LanguageSpec;
  private readonly module: ModuleIR;
  private readonly fn: FunctionIR;
  private readonly paramTypes = new Map<string, string>();
  private ret: Value | undefined;
  private readonly sinks: SinkSummary[] = [];
  private readonly fieldWrites = new Map<string, Fact[]>();
  private readonly seenSinks = new Set<string>();
  private loopExits: Exits[] = [];
  /** The statement being interpreted: the place of a step whose expression has none of its own. */
  private at: Loc;
  private depth = 0;

  constructor(
    private readonly s: Shared,
    ref: FnRef,
  ) {
    this.module = ref.module;
    this.fn = ref.fn;
    this.at = ref.fn.loc;
    const spec = s.specs.get(ref.module.language === "typescript" ? "javascript" : ref.module.language);
    if (!spec) throw new Error(`no language table for ${ref.module.language}`);
    this.spec = spec;
    for (const p of this.fn.params) if (p.type) this.paramTypes.set(p.name, p.type);
  }

  run(): Summary {
    const env: Env = new Map();
    this.fn.params.forEach((p, index) => {
      const step = this.step(this.fn.loc, "step", `parameter \`${p.name}\``);
      const facts: Fact[] = [{ origin: { kind: "param", index }, steps: [step], clean: new Set() }];
      const source = this.fn.sourceParams?.find((sp) => sp.index === index);
      if (source) facts.push(this.sourceFact(`param:${p.name}`, source.label, "remote", this.fn.loc));
      env.set(p.name, { facts });
    });
    this.block(this.fn.body, env);
    return { ret: this.ret ?? EMPTY, sinks: this.sinks, fieldWrites: [...this.fieldWrites].map(([key, facts]) => ({ key, facts })) };
  }

  // ---- statements ------------------------------------------------------------------------

  private block(stmts: readonly Stmt[], env: Env | null): Env | null {
    for (const st of stmts) {
      if (!env) return null;
      env = this.stmt(st, env);
    }
    return env;
  }

  private stmt(st: Stmt, env: Env): Env | null {
    if (st.loc.line) this.at = st.loc;
    switch (st.k) {
      case "assign":
        this.assign(
          st.target,
          st.op === "=" ? this.expr(st.value, env) : combine([this.expr(st.target as Expr, env), this.expr(st.value, env)]),
          env,
          st.loc,
          st.decl === true,
        );
        return env;
      case "declare":
        env.set(st.name, EMPTY);
        return env;
      case "expr":
        this.expr(st.expr, env);
        return env;
      case "return": {
        const v = st.value ? this.expr(st.value, env) : constant(null);
        this.ret = join(this.ret, v.facts.length ? { ...v, facts: withStep(v.facts, this.step(st.loc, "return", "returned")) } : v);
        return null;
      }
      case "throw":
        if (st.value) this.expr(st.value, env);
        return null;
      case "if": {
        const test = this.expr(st.test, env);
        const truth = truthy(test);
        if (truth === true) return this.block(st.then, env);
        if (truth === false) return this.block(st.else, env);
        const a = this.block(st.then, new Map(env));
        const b = this.block(st.else, new Map(env));
        return joinEnv(a, b);
      }
      case "loop":
        return this.loop(st, env);
      case "switch":
        return this.switchStmt(st, env);
      case "try": {
        const after = this.block(st.body, new Map(env));
        let out = joinEnv(after, null);
        const handlerStart = joinEnv(after, env) ?? new Map(env);
        for (const h of st.handlers) {
          const he = new Map(handlerStart);
          if (h.param) he.set(h.param, EMPTY);
          out = joinEnv(out, this.block(h.body, he));
        }
        if (!st.finally.length) return out;
        // A finally block runs on every path; after it, only the normal completions go on.
        const fin = this.block(st.finally, out ?? new Map(handlerStart));
        return out ? fin : null;
      }
      case "break":
        this.loopExits.at(-1)?.breaks.push(new Map(env));
        return null;
      case "continue":
        this.loopExits.at(-1)?.continues.push(new Map(env));
        return null;
      case "block":
        return this.block(st.body, env);
    }
  }

  private loop(st: Extract<Stmt, { k: "loop" }>, env0: Env): Env | null {
    const env: Env | null = this.block(st.init, env0);
    if (!env) return null;
    const exits: Exits = { breaks: [], continues: [] };
    this.loopExits.push(exits);
    const entryTest = st.test ? truthy(this.expr(st.test, env)) : st.kind === "foreach" ? undefined : true;
    const mayNotRun = st.kind !== "do" && entryTest !== true;
    if (entryTest === false && st.kind !== "do") {
      this.loopExits.pop();
      return env;
    }
    let entry: Env = env;
    let after: Env | null = mayNotRun ? new Map(env) : null;
    // Two passes carry values around the loop once; enough for taint, which only grows.
    for (let pass = 0; pass < 2; pass++) {
      const body = new Map(entry);
      if (st.each) this.assign(st.each.target, this.elementOf(this.expr(st.each.iterable, body)), body, st.loc, true);
      let end = this.block(st.body, body);
      for (const c of exits.continues.splice(0)) end = joinEnv(end, c);
      end = end ? this.block(st.update, end) : null;
      if (!end) break;
      after = joinEnv(after, end);
      entry = joinEnv(entry, end) ?? entry;
    }
    this.loopExits.pop();
    const alwaysTrue = st.test ? truthy(this.expr(st.test, after ?? env)) === true && entryTest === true : !st.each;
    let out: Env | null = alwaysTrue ? null : after;
    for (const b of exits.breaks) out = joinEnv(out, b);
    return out;
  }

  private switchStmt(st: Extract<Stmt, { k: "switch" }>, env: Env): Env | null {
    const test = this.expr(st.test, env);
    const exits: Exits = { breaks: [], continues: [] };
    this.loopExits.push(exits);
    let out: Env | null = null;
    const known = test.konst !== undefined;
    let start = -1;
    if (known) {
      start = st.cases.findIndex((c) =>
        c.values?.some((v) => {
          const cv = this.expr(v, env);
          return cv.konst !== undefined && cv.konst.v === test.konst?.v;
        }),
      );
      if (start === -1) start = st.cases.findIndex((c) => c.values === null);
      if (start === -1) {
        this.loopExits.pop();
        return env;
      }
    }
    let fall: Env | null = null;
    for (let i = known ? start : 0; i < st.cases.length; i++) {
      const c = st.cases[i]!;
      const entry: Env | null = known ? (i === start ? new Map(env) : fall) : joinEnv(new Map(env), fall);
      fall = entry ? this.block(c.body, entry) : null;
    }
    out = fall;
    if (!known && !st.cases.some((c) => c.values === null)) out = joinEnv(out, env);
    this.loopExits.pop();
    for (const b of exits.breaks) out = joinEnv(out, b);
    return out;
  }

  private assign(target: LValue, value: Value, env: Env, loc: Loc, decl: boolean): void {
    switch (target.k) {
      case "var": {
        const v = value.facts.length
          ? { ...value, facts: withStep(value.facts, this.step(loc, "step", `assigned to \`${target.name}\``)) }
          : value;
        if (!decl && !env.has(target.name)) {
          const key = this.storageKey(target.name);
          if (key) {
            this.writeField(key, v, env);
            return;
          }
        }
        env.set(target.name, v);
        return;
      }
      case "field": {
        const owner = this.fieldOwner(target.object, env);
        const facts = withStep(value.facts, this.step(loc, "step", `stored in field \`${target.name}\``));
        this.checkFieldSink(target.name, value, loc);
        if (owner) {
          this.writeField(this.s.program.isField(owner, target.name) ?? `${owner}.${target.name}`, { ...value, facts }, env);
          return;
        }
        this.storeInto(target.object, target.name, { ...value, facts }, env);
        return;
      }
      case "index": {
        const key = this.expr(target.index, env).konst;
        this.storeInto(
          target.object,
          key && key.v !== null ? String(key.v) : null,
          { ...value, facts: withStep(value.facts, this.step(loc, "step", "stored in a collection")) },
          env,
        );
        return;
      }
      case "destructure":
        for (const t of target.targets) this.assign(t, { facts: value.facts }, env, loc, decl);
        return;
    }
  }

  /** A write into an object held by a local variable: the variable's value takes the facts. */
  private storeInto(object: Expr, key: string | null, value: Value, env: Env): void {
    const name =
      object.k === "var" ? object.name : object.k === "field" || object.k === "index" ? chainPath(object)?.split(".")[0] : undefined;
    if (!name || !env.has(name)) {
      const base = object.k === "field" || object.k === "index" ? object.object : null;
      if (base) this.storeInto(base, null, value, env);
      return;
    }
    const old = env.get(name) ?? EMPTY;
    const keys = new Map(old.keys ?? []);
    if (key !== null && object.k === "var") keys.set(key, value);
    const loose = key === null || object.k !== "var" ? mergeFacts(old.loose, value.facts) : old.loose;
    env.set(name, { ...old, facts: mergeFacts(old.facts, value.facts), keys, ...(loose ? { loose } : {}), konst: undefined } as Value);
    for (const w of old.wraps ?? []) if (w !== name && env.has(w)) this.storeInto({ k: "var", name: w, loc: object.loc }, null, value, env);
  }

  /** This function's own view of the field from here on, and the repository-wide store. */
  private writeField(key: string, value: Value, env: Env): void {
    env.set(`@${key}`, value);
    this.storeField(key, value.facts);
  }

  private storeField(key: string, facts: readonly Fact[]): void {
    const passed = facts.filter((f) => f.origin.kind !== "source" && !(f.origin.kind === "field" && f.origin.key === key));
    if (passed.length) this.fieldWrites.set(key, mergeFacts(this.fieldWrites.get(key), passed));
    const sources = facts.filter((f) => f.origin.kind === "source");
    if (sources.length) this.s.store(key, sources);
  }

  // ---- expressions -----------------------------------------------------------------------

  expr(e: Expr, env: Env): Value {
    if (++this.depth > 200) {
      this.depth--;
      return EMPTY;
    }
    try {
      return this.eval(e, env);
    } finally {
      this.depth--;
    }
  }

  private eval(e: Expr, env: Env): Value {
    switch (e.k) {
      case "const":
        return constant(e.value);
      case "var":
        return this.readVar(e.name, env, e.loc);
      case "this":
        return EMPTY;
      case "field": {
        if (e.path) {
          const src = this.spec.sources.find((r) => r.field?.test(e.path!));
          if (src) return { facts: [this.sourceFact(src.id, src.label, src.kind, e.loc)] };
        }
        const owner = this.fieldOwner(e.object, env);
        if (owner) return this.readKey(this.s.program.isField(owner, e.name) ?? `${owner}.${e.name}`, env, e.loc);
        const obj = this.expr(e.object, env);
        const keyed = obj.keys?.get(e.name);
        if (keyed) return { facts: mergeFacts(keyed.facts, obj.loose), ...(keyed.konst ? { konst: keyed.konst } : {}) };
        return { facts: obj.facts };
      }
      case "call":
        return this.call(e, env);
      case "new":
        return this.construct(e, env);
      case "binary":
        return this.binary(e, env);
      case "unary": {
        const v = this.expr(e.arg, env);
        if (v.konst) {
          if (e.op === "!" || e.op === "not") return constant(!truthyConst(v.konst.v));
          if (e.op === "-" && typeof v.konst.v === "number") return constant(-v.konst.v);
        }
        return { facts: e.op === "typeof" ? [] : v.facts };
      }
      case "cond": {
        const t = truthy(this.expr(e.test, env));
        if (t === true) return this.expr(e.then, env);
        if (t === false) return this.expr(e.else, env);
        return join(this.expr(e.then, env), this.expr(e.else, env));
      }
      case "index": {
        const obj = this.expr(e.object, env);
        const idx = this.expr(e.index, env);
        const key = idx.konst && idx.konst.v !== null ? String(idx.konst.v) : null;
        if (key !== null && obj.keys?.has(key)) {
          const kv = obj.keys.get(key)!;
          return { ...kv, facts: mergeFacts(kv.facts, obj.loose) };
        }
        if (
          key !== null &&
          obj.keys &&
          obj.keys.size &&
          !obj.loose?.length &&
          obj.facts.every((f) => [...obj.keys!.values()].some((v) => v.facts.includes(f)))
        )
          return EMPTY;
        return { facts: obj.facts };
      }
      case "array": {
        const items = e.items.map((i) => this.expr(i, env));
        const keys = new Map<string, Value>();
        items.forEach((v, i) => keys.set(String(i), v));
        return { facts: mergeFacts(...items.map((v) => v.facts)), keys };
      }
      case "object": {
        const keys = new Map<string, Value>();
        const all: Value[] = [];
        let loose: Fact[] = [];
        for (const entry of e.entries) {
          const v = this.expr(entry.value, env);
          all.push(v);
          if (entry.key === null) loose = mergeFacts(loose, v.facts);
          else keys.set(entry.key, v);
        }
        return { facts: mergeFacts(...all.map((v) => v.facts)), keys, loose };
      }
      case "template": {
        const parts = e.parts.map((p) => this.expr(p, env));
        if (parts.every((p) => p.konst)) return constant(parts.map((p) => String(p.konst!.v ?? "")).join(""));
        return combine(parts);
      }
      case "cast":
        return this.expr(e.arg, env);
      case "lambda":
        return EMPTY;
      case "unknown":
        return combine(e.parts.map((p) => this.expr(p, env)));
    }
  }

  private binary(e: Extract<Expr, { k: "binary" }>, env: Env): Value {
    const l = this.expr(e.left, env);
    if ((e.op === "&&" || e.op === "and") && l.konst && !truthyConst(l.konst.v)) return l;
    if ((e.op === "||" || e.op === "or") && l.konst && truthyConst(l.konst.v)) return l;
    const r = this.expr(e.right, env);
    if (l.konst && r.konst && FOLDABLE.has(e.op)) {
      const folded = fold(e.op, l.konst.v, r.konst.v);
      if (folded !== undefined) return constant(folded);
    }
    if (["==", "!=", "===", "!==", "<", "<=", ">", ">=", "instanceof", "in", "is", "not in", "is not"].includes(e.op)) return EMPTY;
    return { facts: mergeFacts(l.facts, r.facts) };
  }

  private readVar(name: string, env: Env, loc: Loc): Value {
    const local = env.get(name);
    if (local) return local;
    const key = this.storageKey(name);
    if (key) return this.readKey(key, env, loc);
    return EMPTY;
  }

  /** Where an undeclared name lives: a field of this class (Java) or a module global. */
  private storageKey(name: string): string | null {
    if (this.module.language === "java") return this.s.program.isField(this.fn.cls, name);
    const g = `${this.module.file}::${name}`;
    return this.s.program.globalInit.has(g) || this.s.program.writes.has(g) ? g : null;
  }

  private fieldOwner(object: Expr, env: Env): string | null {
    if (object.k === "this") return this.fn.cls;
    if (object.k === "var" && !env.has(object.name)) {
      if ((object.name === "self" || object.name === "cls") && this.fn.cls) return this.fn.cls;
      if (this.s.program.classes.has(object.name)) return object.name;
    }
    if (object.k === "var" && (object.name === "self" || object.name === "this") && this.fn.cls && this.module.language !== "java")
      return this.fn.cls;
    return null;
  }

  /**
   * A field or module global: this function's own write if it made one, else its constant
   * value when it is never written, else an implicit parameter the callers fill in.
   */
  private readKey(key: string, env: Env, loc: Loc): Value {
    const own = env.get(`@${key}`);
    if (own) return own;
    const name = key.split(/\.|::/).pop() ?? key;
    if (!this.s.program.writes.get(key) && !this.s.program.writtenNames.has(name)) {
      const init = this.s.program.fieldInit.get(key) ?? this.s.program.globalInit.get(key);
      const k = init ? constOf(init) : undefined;
      if (k !== undefined) return constant(k);
    }
    return { facts: [{ origin: { kind: "field", key }, steps: [this.step(loc, "step", `read from \`${name}\``)], clean: new Set() }] };
  }

  // ---- calls -----------------------------------------------------------------------------

  private call(e: Extract<Expr, { k: "call" }>, env: Env): Value {
    // Python makes objects by calling the class: `Job(x)` is `new Job(x)`.
    if (!e.receiver && this.module.language === "python" && !env.has(e.callee) && this.s.program.classes.has(e.callee)) {
      return this.construct({ k: "new", cls: e.callee, args: e.args, loc: e.loc, text: e.text }, env);
    }
    const receiver = e.receiver ? this.expr(e.receiver, env) : null;
    const args = e.args.map((a) => this.expr(a, env));
    const kwargs = new Map(Object.entries(e.kwargs ?? {}).map(([k, v]) => [k, this.expr(v, env)] as const));
    const targets = this.resolve(e, env);
    if (targets.precise.length) return this.applySummaries(targets.precise, e, receiver, args, env);

    const source = this.spec.sources.find((r) => r.call && this.matches(r.call, e, receiver, env));
    if (source)
      return {
        facts: mergeFacts(
          receiver?.facts.filter((f) => f.origin.kind === "source"),
          [this.sourceFact(source.id, source.label, source.kind, e.loc)],
        ),
      };
    const sanitizer = this.spec.sanitizers.find((r) => this.matches(r.call, e, receiver, env));
    if (sanitizer)
      return { facts: sanitized(mergeFacts(...args.map((a) => a.facts), ...[...kwargs.values()].map((a) => a.facts)), sanitizer.cwes) };
    for (const rule of this.spec.sinks)
      if (!rule.call.isNew && this.matches(rule.call, e, receiver, env)) this.checkSink(rule, e, receiver, args, kwargs);
    if (targets.loose.length) return this.applySummaries(targets.loose, e, receiver, args, env);

    return this.defaultCall(e, receiver, args, kwargs, env);
  }

  private defaultCall(e: Extract<Expr, { k: "call" }>, receiver: Value | null, args: Value[], kwargs: Map<string, Value>, env: Env): Value {
    // A function literal handed to library code (`names.forEach(n -> …)`, `items.map(x => …)`)
    // is called with the receiver's elements.
    if (receiver?.facts.length) {
      for (const arg of e.args) {
        const target = arg.k === "lambda" ? this.s.program.lambdas.get(arg.name) : undefined;
        if (target) this.applySummaries([target], { ...e, callee: target.fn.name }, null, [this.elementOf(receiver)], env);
      }
    }
    const argFacts = mergeFacts(...args.map((a) => a.facts), ...[...kwargs.values()].map((a) => a.facts));
    const putKey =
      e.receiver && ["put", "set", "setdefault", "setAttribute", "setProperty"].includes(e.callee) && args.length >= 2
        ? args[0]?.konst
        : undefined;
    if (e.receiver && putKey && putKey.v !== null) {
      // A constant key: the entry is replaced, tainted or not.
      this.storeInto(e.receiver, String(putKey.v), { ...(args[1] ?? EMPTY) }, env);
    } else if (e.receiver && this.spec.mutators.includes(e.callee) && argFacts.length) {
      this.storeInto(e.receiver, null, { facts: argFacts }, env);
    }
    if (receiver && ["get", "getOrDefault", "getProperty", "pop", "remove", "getAttribute"].includes(e.callee) && receiver.keys?.size) {
      const key = args[0]?.konst;
      if (key && key.v !== null) {
        const kv = receiver.keys.get(String(key.v));
        if (kv) return { ...kv, facts: mergeFacts(kv.facts, receiver.loose) };
        return { facts: mergeFacts(receiver.loose, e.callee === "getOrDefault" ? args[1]?.facts : []) };
      }
    }
    const parts = [receiver?.facts ?? [], argFacts];
    const v: Value = { facts: mergeFacts(...parts), via: e.text };
    return v;
  }

  private construct(e: Extract<Expr, { k: "new" }>, env: Env): Value {
    const args = e.args.map((a) => this.expr(a, env));
    const asCall = { k: "call" as const, callee: e.cls, receiver: null, args: e.args, path: e.cls, loc: e.loc, text: e.text };
    const sanitizer = this.spec.sanitizers.find((r) => r.call.isNew && r.call.names.includes(e.cls));
    if (sanitizer) return { facts: sanitized(mergeFacts(...args.map((a) => a.facts)), sanitizer.cwes), cls: e.cls };
    for (const rule of this.spec.sinks)
      if (rule.call.isNew && rule.call.names.includes(e.cls)) this.checkSink(rule, asCall, null, args, new Map());
    const ctor = this.s.program.methods(e.cls, this.module.language === "python" ? "__init__" : "<init>", false);
    if (ctor.length) this.applySummaries(ctor, asCall, null, args, env);
    const wraps = e.args.filter((a): a is Extract<Expr, { k: "var" }> => a.k === "var" && env.has(a.name)).map((a) => a.name);
    return { facts: mergeFacts(...args.map((a) => a.facts)), cls: e.cls, via: e.text, ...(wraps.length ? { wraps } : {}) };
  }

  /**
   * Functions of the repository a call may reach. `precise`: resolved by the receiver's class
   * or the enclosing class/module, so the repository's code wins over a same-named library
   * rule; `loose`: same name elsewhere, used only when no rule matched.
   */
  private resolve(e: Extract<Expr, { k: "call" }>, env: Env): { precise: FnRef[]; loose: FnRef[] } {
    const p = this.s.program;
    const arity = (r: FnRef) =>
      r.fn.params.length - this.selfOffset(r) === e.args.length || r.fn.params.length === 0 || e.args.length === 0;
    if (!e.receiver) {
      const lambda = env.get(e.callee) ? undefined : p.lambdas.get(e.callee);
      if (lambda) return { precise: [lambda], loose: [] };
      const own = (this.fn.cls ? p.methods(this.fn.cls, e.callee, true) : []).filter(arity);
      if (own.length) return { precise: own, loose: [] };
      const local = p.byModule.get(this.module.file)?.get(e.callee) ?? [];
      if (local.length) return { precise: local, loose: [] };
      const imported = importOf(this.module, e.callee);
      const loose = imported ? (p.byName.get(e.callee) ?? []).filter((r) => !r.fn.cls) : [];
      return { precise: [], loose: loose.slice(0, 4) };
    }
    const r = e.receiver;
    let cls: string | undefined;
    if (r.k === "this" || (r.k === "var" && (r.name === "self" || r.name === "this") && this.module.language !== "java"))
      cls = this.fn.cls ?? undefined;
    else if (r.k === "new") cls = r.cls;
    else if (r.k === "var")
      cls = env.get(r.name)?.cls ?? (!env.has(r.name) && p.classes.has(r.name) ? r.name : undefined) ?? this.paramTypes.get(r.name);
    if (cls && p.classes.has(cls)) {
      const found = p.methods(cls, e.callee, true).filter(arity);
      if (found.length) return { precise: found, loose: [] };
    }
    const importedAs = r.k === "var" ? importOf(this.module, r.name) : undefined;
    if (importedAs) {
      const mod = importedAs.split(/[./]/).pop();
      const loose = (p.byName.get(e.callee) ?? []).filter((f) => !f.fn.cls && f.module.file.replace(/\.[^.]+$/, "").endsWith(mod ?? "\0"));
      if (loose.length) return { precise: [], loose: loose.slice(0, 4) };
    }
    const named = p.methodsNamed(e.callee).filter(arity);
    return { precise: [], loose: named.length <= 4 ? named : [] };
  }

  private selfOffset(ref: FnRef): number {
    const first = ref.fn.params[0]?.name;
    return ref.module.language === "python" && ref.fn.cls && (first === "self" || first === "cls") ? 1 : 0;
  }

  private applySummaries(targets: FnRef[], e: Extract<Expr, { k: "call" }>, receiver: Value | null, args: Value[], env: Env): Value {
    let out: Value | undefined;
    for (const target of targets) {
      const summary = this.s.summaries.get(target.key);
      if (!summary) {
        out = join(out, { facts: mergeFacts(receiver?.facts, ...args.map((a) => a.facts)) });
        continue;
      }
      const offset = this.selfOffset(target);
      this.s.called.add(target.key);
      const argFor = (param: number | string): Value | undefined =>
        typeof param === "string" ? this.readKey(param, env, e.loc) : param < offset ? (receiver ?? undefined) : args[param - offset];
      const callStep = (param: number | string) =>
        this.step(
          e.loc,
          "call",
          typeof param === "string"
            ? `\`${target.fn.name}\` called, reading \`${param.split(/\.|::/).pop()}\``
            : `passed to \`${target.fn.name}\` (${target.fn.params[param]?.name ?? `parameter ${param + 1}`})`,
        );
      for (const sink of summary.sinks) {
        const arg = argFor(sink.param);
        for (const fact of arg?.facts ?? []) {
          if (fact.clean.has(sink.rule.cwe)) continue;
          this.report(
            { ...appendSteps(fact, [callStep(sink.param)]), steps: [...fact.steps, callStep(sink.param)] },
            sink.rule,
            sink.file,
            sink.loc,
            sink.steps,
          );
        }
      }
      for (const write of summary.fieldWrites) {
        for (const f of write.facts) {
          const param = f.origin.kind === "param" ? f.origin.index : f.origin.kind === "field" ? f.origin.key : null;
          if (param === null) continue;
          const stored = (argFor(param)?.facts ?? []).map((a) => ({
            ...appendSteps(a, [callStep(param), ...f.steps.slice(1)]),
            clean: new Set([...a.clean, ...f.clean]),
          }));
          if (stored.length) this.storeField(write.key, stored);
        }
      }
      const facts: Fact[] = [];
      for (const f of summary.ret.facts) {
        if (f.origin.kind === "source") facts.push(appendSteps(f, [this.step(e.loc, "return", `returned by \`${target.fn.name}\``)]));
        else {
          const param = f.origin.kind === "param" ? f.origin.index : f.origin.key;
          for (const a of argFor(param)?.facts ?? [])
            facts.push({ ...appendSteps(a, [callStep(param), ...f.steps.slice(1)]), clean: new Set([...a.clean, ...f.clean]) });
        }
      }
      out = join(out, { facts: mergeFacts(facts), ...(summary.ret.konst ? { konst: summary.ret.konst } : {}) });
    }
    void env;
    return out ?? EMPTY;
  }

  private checkSink(
    rule: SinkRule,
    e: Extract<Expr, { k: "call" }>,
    receiver: Value | null,
    args: Value[],
    kwargs: Map<string, Value>,
  ): void {
    if (rule.requireKwarg) {
      const kv = kwargs.get(rule.requireKwarg.name);
      const on = kv?.konst ? truthyConst(kv.konst.v) : kv !== undefined;
      if (on !== rule.requireKwarg.truthy) return;
    }
    const which = rule.args ?? [0];
    const values: Value[] = [];
    if (which === "all") values.push(...args, ...kwargs.values());
    else
      for (const w of which) {
        const v = typeof w === "number" ? args[w] : kwargs.get(w);
        if (v) values.push(v);
      }
    if (rule.receiver && receiver) values.push(receiver);
    for (const v of values)
      for (const fact of v.facts)
        if (!fact.clean.has(rule.cwe)) this.report(fact, rule, this.module.file, e.loc, [this.step(e.loc, "sink", rule.title)]);
  }

  private checkFieldSink(name: string, value: Value, loc: Loc): void {
    for (const rule of this.spec.fieldSinks ?? []) {
      if (!rule.field.test(name)) continue;
      const asSink: SinkRule = { ...rule, call: { names: [name] } };
      for (const fact of value.facts)
        if (!fact.clean.has(rule.cwe)) this.report(fact, asSink, this.module.file, loc, [this.step(loc, "sink", rule.title)]);
    }
  }

  private report(fact: Fact, rule: SinkRule, file: string, loc: Loc, tail: readonly TraceStep[]): void {
    if (fact.origin.kind === "source") {
      this.s.onHit({ fact, rule, file, loc, steps: [...fact.steps, ...tail] });
      return;
    }
    const param = fact.origin.kind === "param" ? fact.origin.index : fact.origin.key;
    const key = `${param}|${rule.id}|${file}|${loc.line}|${loc.column}`;
    if (this.seenSinks.has(key)) return;
    this.seenSinks.add(key);
    this.sinks.push({ param, rule, file, loc, steps: [...fact.steps.slice(1), ...tail] });
  }

  private matches(p: CallPattern, e: Extract<Expr, { k: "call" }>, receiver: Value | null, env: Env): boolean {
    if (!p.names.includes(e.callee)) return false;
    if (p.path && !(e.path !== undefined && p.path.test(e.path))) return false;
    if (p.receiver) {
      const r = e.receiver;
      const texts = [
        r ? chainPath(r) : undefined,
        receiver?.via,
        receiver?.cls,
        r?.k === "var" ? this.paramTypes.get(r.name) : undefined,
        r?.k === "call" ? r.text : undefined,
      ];
      if (!texts.some((t) => t !== undefined && p.receiver!.test(t))) return false;
    }
    void env;
    return true;
  }

  private elementOf(v: Value): Value {
    return { facts: mergeFacts(v.facts, v.loose) };
  }

  private sourceFact(rule: string, label: string, kind: "remote" | "local", loc: Loc): Fact {
    return {
      origin: { kind: "source", rule, label, sourceKind: kind, at: `${this.module.file}:${loc.line}:${loc.column}` },
      steps: [this.step(loc, "source", label)],
      clean: new Set(),
    };
  }

  private step(at: Loc, kind: TraceStep["kind"], label: string): TraceStep {
    const loc = at.line ? at : this.at;
    const line = this.s.lines(this.module.file)[loc.line - 1] ?? "";
    return { file: this.module.file, line: loc.line, column: loc.column, kind, label, code: line.trim().slice(0, 160) };
  }
}

/**
 * What a module imported under `name`. Own keys only: a name such as `constructor` or
 * `toString` in the analysed code would otherwise find Object.prototype's function.
 */
function importOf(module: ModuleIR, name: string): string | undefined {
  return Object.hasOwn(module.imports, name) ? module.imports[name] : undefined;
}
