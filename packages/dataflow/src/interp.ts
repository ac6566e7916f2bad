/**
 * Abstract interpretation of one function: walks its statements with an environment of
 * abstract values (values.ts), folding constants so that a branch whose condition is a
 * constant is not entered, and follows taint through assignments, concatenation,
 * formatting, collections, fields and calls. Calls to functions of the repository use their
 * summaries (what reaches their return value and which parameters reach a sink: see
 * interp-calls.ts); the summary of this function is what `run` returns.
 */
import { freeNameFact, freeNameKey } from "./free-names";
import type { Expr, LValue, Loc, Stmt } from "./ir";
import type { Summary } from "./summary";
import { fold, FOLDABLE, joinEnv, truthy, truthyConst, type Env } from "./fold";
import { ClosureInterpreter } from "./interp-closures";
import { foldStringCall, foldStringIndex, foldStringOp, foldStringSlice, pureShape, STRING_METHODS } from "./fold-strings";
import {
  degrade,
  elementAt,
  emptyList,
  interpListCall,
  isNewList,
  releaseList,
  releaseLists,
  releaseLoopLists,
  withLoose,
} from "./containers";
import { caseGuard, derivation, guardOf, isExitCall, replaceSanitizes, type Guard, type Refinement } from "./guards";
import { combine, constant, EMPTY, mergeFacts, sanitized, withStep, join, type Fact, type Value } from "./values";

interface Exits {
  breaks: Env[];
  continues: Env[];
}

export class FunctionInterpreter extends ClosureInterpreter {
  private ret: Value | undefined;
  private loopExits: Exits[] = [];
  private depth = 0;

  run(): Summary {
    const env: Env = new Map();
    this.fn.params.forEach((p, index) => {
      const step = this.step(this.fn.loc, "step", `parameter \`${p.name}\``);
      const facts: Fact[] = [{ origin: { kind: "param", index }, steps: [step], clean: new Set() }];
      const source = this.fn.sourceParams?.find((sp) => sp.index === index);
      if (source) facts.push(this.sourceFact(`param:${p.name}`, source.label, source.kind ?? "remote", this.fn.loc));
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
        // A list copied to another name or stored elsewhere: both may change it, positions are lost.
        releaseList(st.value, env);
        this.assign(
          st.target,
          st.op === "=" ? this.expr(st.value, env) : combine([this.expr(st.target as Expr, env), this.expr(st.value, env)]),
          env,
          st.loc,
          st.decl === true,
          st.value,
        );
        return env;
      case "declare":
        env.set(st.name, EMPTY);
        return env;
      case "expr":
        this.expr(st.expr, env);
        return isExitCall(st.expr) ? null : env;
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
        const g = this.guard(st.test, env);
        const a = this.block(st.then, this.refine(new Map(env), g.whenTrue));
        const b = this.block(st.else, this.refine(new Map(env), g.whenFalse));
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
    releaseLoopLists([...st.body, ...st.update], env);
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
      // A case of constants: the tested variable is one of them there (an allowlist), unless a case falls into it.
      const matched = c.values && st.test.k === "var" ? this.refine(new Map(env), caseGuard(st.test.name, c.values)) : new Map(env);
      const entry: Env | null = known ? (i === start ? new Map(env) : fall) : joinEnv(matched, fall);
      fall = entry ? this.block(c.body, entry) : null;
    }
    out = fall;
    if (!known && !st.cases.some((c) => c.values === null)) out = joinEnv(out, env);
    this.loopExits.pop();
    for (const b of exits.breaks) out = joinEnv(out, b);
    return out;
  }

  private assign(target: LValue, value: Value, env: Env, loc: Loc, decl: boolean, valueExpr?: Expr): void {
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
        this.checkFieldSink(target.name, target.object, value, loc, undefined, valueExpr);
        if (owner) {
          this.writeField(this.s.program.isField(owner, target.name) ?? `${owner}.${target.name}`, { ...value, facts }, env);
          return;
        }
        this.storeInto(target.object, target.name, { ...value, facts }, env);
        return;
      }
      case "index": {
        const index = this.expr(target.index, env);
        this.checkFieldSink(null, target.object, value, loc, index, valueExpr);
        const key = index.konst;
        const list = target.object.k === "var" ? env.get(target.object.name) : undefined;
        const inside = typeof key?.v === "number" && Number.isInteger(key.v) && key.v >= 0 && key.v < (list?.len ?? 0);
        if (target.object.k === "var" && list?.len !== undefined && !inside) env.set(target.object.name, degrade(list));
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

  /** This function's own view of the field from here on, and the repository-wide store. */
  private writeField(key: string, value: Value, env: Env): void {
    env.set(`@${key}`, value);
    this.storeField(key, value.facts);
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
      case "field":
        return this.fieldRead(e, env);
      case "call":
        return this.callExpr(e, env);
      case "new": {
        const v = this.construct(e, env);
        releaseLists(e, env);
        const derived = derivation(e, this.module.language);
        return derived ? { ...v, derived } : isNewList(e) ? { ...v, ...emptyList() } : v;
      }
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
        const g = this.guard(e.test, env);
        return join(this.expr(e.then, this.refine(new Map(env), g.whenTrue)), this.expr(e.else, this.refine(new Map(env), g.whenFalse)));
      }
      case "index":
        return this.indexRead(e, env);
      case "array":
        return this.arrayLiteral(e, env);
      case "object":
        return this.objectLiteral(e, env);
      case "template": {
        const parts = e.parts.map((p) => this.expr(p, env));
        if (parts.every((p) => p.konst)) return constant(parts.map((p) => String(p.konst!.v ?? "")).join(""));
        return combine(parts);
      }
      case "cast":
        return this.expr(e.arg, env);
      case "lambda":
        return this.closure(e.name, e.loc, env);
      case "unknown":
        return combine(e.parts.map((p) => this.expr(p, env)));
    }
  }

  /** What a condition proves about variables on each branch (guards.ts). */
  private guard(test: Expr, env: Env): Guard {
    const peek = (e: Expr) => (e.k === "var" || e.k === "field" ? this.expr(e, env) : undefined);
    return guardOf(test, peek, (name) => env.get(name)?.derived);
  }

  private refine(env: Env, refs: readonly Refinement[]): Env {
    for (const r of refs) {
      const v = env.get(r.name);
      if (v?.facts.length) env.set(r.name, { ...v, facts: sanitized(v.facts, r.cwes) });
    }
    return env;
  }

  /** A call: folded when it is a pure string method on constants, else interpreted (interp-calls.ts). */
  private callExpr(e: Extract<Expr, { k: "call" }>, env: Env): Value {
    const listed = interpListCall(e, env, (a) => this.expr(a, env), this.module.language);
    if (listed) return listed;
    if (STRING_METHODS.has(e.callee) && pureShape(e)) {
      const receiver = e.receiver ? this.expr(e.receiver, env).konst : undefined;
      if (!e.receiver || receiver) {
        const args = e.args.map((a) => this.expr(a, env).konst);
        if (args.every((a) => a !== undefined)) {
          const folded = foldStringCall(
            e.callee,
            receiver?.v,
            args.map((a) => a!.v),
          );
          if (folded !== undefined) return constant(folded);
        }
      }
    }
    const v = this.call(e, env);
    releaseLists(e, env);
    const cwes = replaceSanitizes(e);
    const derived = derivation(e, this.module.language);
    if (!cwes && !derived) return v;
    return { ...v, ...(cwes ? { facts: sanitized(v.facts, cwes) } : {}), ...(derived ? { derived } : {}) };
  }

  /** A field: a source by its path, a field of a class or a module global, or a key of a local object. */
  private fieldRead(e: Extract<Expr, { k: "field" }>, env: Env): Value {
    if (e.path) {
      const src = this.spec.sources.find((r) => r.field?.test(e.path!));
      if (src) return { facts: [this.sourceFact(src.id, src.label, src.kind, e.loc)] };
    }
    const owner = this.fieldOwner(e.object, env);
    if (!owner && e.name === "length" && pureShape(e.object)) {
      const s = this.expr(e.object, env);
      if (typeof s.konst?.v === "string") return constant(s.konst.v.length);
      if (s.len !== undefined) return constant(s.len);
    }
    if (owner) return this.readKey(this.s.program.isField(owner, e.name) ?? `${owner}.${e.name}`, env, e.loc);
    const obj = this.expr(e.object, env);
    const keyed = obj.keys?.get(e.name);
    if (keyed)
      return withLoose(
        { facts: keyed.facts, ...(keyed.konst ? { konst: keyed.konst } : {}), ...(keyed.keys ? { keys: keyed.keys } : {}) },
        obj.loose,
      );
    // Server-side state hung on the request (`req.session`): not what the client sent.
    const statePath = e.path ?? indexedFieldPath(e);
    if (statePath && this.spec.serverState?.test(statePath)) return { facts: obj.facts.filter((f) => f.origin.kind !== "source") };
    return { facts: obj.facts };
  }

  /** An element: a known key of a local collection, or the whole collection's facts. */
  private indexRead(e: Extract<Expr, { k: "index" }>, env: Env): Value {
    const obj = this.expr(e.object, env);
    const idx = this.expr(e.index, env);
    const key = idx.konst && idx.konst.v !== null ? String(idx.konst.v) : null;
    const bounds = e.index.k === "unknown" && e.index.slice && obj.konst ? e.index.slice : undefined;
    if (bounds && bounds.every((b) => !b || pureShape(b))) {
      const sliced = foldStringSlice(
        obj.konst!.v,
        bounds.map((b) => (b ? this.expr(b, env).konst?.v : null)),
      );
      if (sliced !== undefined) return constant(sliced);
    }
    const ch = obj.konst && idx.konst ? foldStringIndex(obj.konst.v, idx.konst.v) : undefined;
    if (ch !== undefined) return constant(ch);
    const at = typeof idx.konst?.v === "number" ? elementAt(obj, idx.konst.v, this.module.language === "python") : undefined;
    if (at) return at;
    if (key !== null && obj.keys?.has(key)) {
      const kv = obj.keys.get(key)!;
      return withLoose(kv, obj.loose);
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

  private arrayLiteral(e: Extract<Expr, { k: "array" }>, env: Env): Value {
    const items = e.items.map((i) => this.expr(i, env));
    const keys = new Map<string, Value>();
    items.forEach((v, i) => keys.set(String(i), v));
    // Spreads and splats lower to unknown parts: then positions are not known.
    const len = e.items.some((i) => i.k === "unknown") ? {} : { len: items.length };
    return { facts: mergeFacts(...items.map((v) => v.facts)), keys, ...len };
  }

  private objectLiteral(e: Extract<Expr, { k: "object" }>, env: Env): Value {
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

  private binary(e: Extract<Expr, { k: "binary" }>, env: Env): Value {
    const l = this.expr(e.left, env);
    if ((e.op === "&&" || e.op === "and") && l.konst && !truthyConst(l.konst.v)) return l;
    if ((e.op === "||" || e.op === "or") && l.konst && truthyConst(l.konst.v)) return l;
    const r = this.expr(e.right, env);
    if (l.konst && r.konst && FOLDABLE.has(e.op)) {
      const folded = fold(e.op, l.konst.v, r.konst.v);
      if (folded !== undefined) return constant(folded);
    }
    if (l.konst && r.konst) {
      const folded = foldStringOp(e.op, l.konst.v, r.konst.v);
      if (folded !== undefined) return constant(folded);
    }
    if (["==", "!=", "===", "!==", "<", "<=", ">", ">=", "instanceof", "in", "is", "not in", "is not"].includes(e.op)) return EMPTY;
    return { facts: mergeFacts(l.facts, r.facts) };
  }

  private readVar(name: string, env: Env, loc: Loc): Value {
    const local = env.get(name) ?? this.captured(name, loc);
    if (local) return local;
    const key = this.storageKey(name);
    if (key) return this.readKey(key, env, loc);
    // An inner function named as a value (`run_later(inner)`): a closure created here.
    const closure = this.module.language === "java" ? EMPTY : this.closure(name, null, env);
    // A name nothing here defines: its value is unknown, and a sink it reaches cannot be refuted (free-names.ts).
    const free = freeNameKey(this.s.program, this.module, name);
    if (!free) return closure;
    const fact = freeNameFact(free, this.step(loc, "step", `read \`${name}\`, defined outside the analysed code`));
    return { ...closure, facts: [...closure.facts, fact] };
  }

  /** Where an undeclared name lives: a field of this class (Java) or a module global. */
  private storageKey(name: string): string | null {
    if (this.module.language === "java") return this.s.program.isField(this.owner, name);
    const g = `${this.module.file}::${name}`;
    return this.s.program.globalInit.has(g) || this.s.program.writes.has(g) ? g : null;
  }

  private fieldOwner(object: Expr, env: Env): string | null {
    if (object.k === "this") return this.owner;
    if (object.k === "var" && !env.has(object.name)) {
      if ((object.name === "self" || object.name === "cls") && this.owner) return this.owner;
      const key = this.classKey(object.name);
      if (key) return key;
    }
    if (object.k === "var" && (object.name === "self" || object.name === "this") && this.owner && this.module.language !== "java")
      return this.owner;
    // `Outer.Inner.FLAG`, `com.acme.Config.FLAG`: a class named by a qualified name.
    if (object.k === "field" && object.path && this.module.language === "java" && !env.has(object.path.split(".")[0]!))
      return this.classKey(object.path) ?? null;
    return null;
  }
}

/** `req.files[0].path` as `req.files[].path`: a field read on an element has no dotted path of its own. */
function indexedFieldPath(e: Extract<Expr, { k: "field" }>): string | undefined {
  if (e.object.k !== "index") return undefined;
  const base = e.object.object;
  const path = base.k === "field" ? base.path : base.k === "var" ? base.name : undefined;
  return path ? `${path}[].${e.name}` : undefined;
}
