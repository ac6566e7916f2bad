/**
 * The part of a function's interpretation that meets other code: a call is a source, a
 * sanitizer, a sink, or a call into the repository whose summary says what reaches its return
 * value, its fields and its sinks; otherwise taint passes through it. Findings and the
 * function's own sink summaries are reported from here. Statements and expressions are in
 * interp.ts.
 */
import type { TraceStep } from "@ax/contracts";
import type { Expr, FunctionIR, Loc, ModuleIR } from "./ir";
import { pyBuiltinMethod, spellings } from "./call-names";
import { bundledLookup, isBundled } from "./source-policy";
import { fromOfParts, globalConfig, loadConfig } from "./config-values";
import { algorithmUse } from "./weak-algorithms";
import { configuredSafely, initState, sinkApplies, stateAfter, withState } from "./typestate";
import { chainPath } from "./lower-util";
import { aliasNameMatches, importedCall, importedPath } from "./modules";
import { callCandidates } from "./call-candidates";
import type { FnRef } from "./program";
import type { CallPattern, LanguageSpec, SinkRule } from "./spec";
import type { Shared, SinkSummary } from "./summary";
import { constOf, truthyConst, type Env } from "./fold";
import { chainRoot, sectionKey, setterEntry, withLoose } from "./containers";
import { constant, EMPTY, mergeFacts, sanitized, appendSteps, join, type Fact, type Value } from "./values";
import { declaredTypes, javaTargets, staticImport, staticType, typeTexts, type TypeScope } from "./java-resolve";
import { simpleOf } from "./class-index";

/** Declared types per function, read-only: a function is interpreted once per round it is due in. */
const declaredCache = new WeakMap<FunctionIR, Map<string, string>>();
function declaredTypesOf(fn: FunctionIR): Map<string, string> {
  let types = declaredCache.get(fn);
  if (!types) declaredCache.set(fn, (types = declaredTypes(fn)));
  return types;
}

export abstract class CallInterpreter {
  protected readonly spec: LanguageSpec;
  protected readonly module: ModuleIR;
  protected readonly fn: FunctionIR;
  /** The enclosing class's key (class-index.ts). */
  protected readonly owner: string | null;
  /** Declared types of parameters and locals (java-resolve.ts). */
  protected readonly paramTypes: Map<string, string>;
  protected readonly sinks: SinkSummary[] = [];
  protected readonly fieldWrites = new Map<string, Fact[]>();
  private readonly seenSinks = new Set<string>();
  /** The statement being interpreted: the place of a step whose expression has none of its own. */
  protected at: Loc;

  constructor(
    protected readonly s: Shared,
    ref: FnRef,
  ) {
    this.module = ref.module;
    this.fn = ref.fn;
    this.owner = ref.owner;
    this.at = ref.fn.loc;
    const spec = s.specs.get(ref.module.language === "typescript" ? "javascript" : ref.module.language);
    if (!spec) throw new Error(`no language table for ${ref.module.language}`);
    this.spec = spec;
    this.paramTypes = declaredTypesOf(this.fn);
  }

  abstract expr(e: Expr, env: Env): Value;

  /** A write into an object held by a local variable: the variable's value takes the facts. */
  protected storeInto(object: Expr, key: string | null, value: Value, env: Env): void {
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

  protected storeField(key: string, facts: readonly Fact[]): void {
    const passed = facts.filter((f) => f.origin.kind !== "source" && !(f.origin.kind === "field" && f.origin.key === key));
    if (passed.length) this.fieldWrites.set(key, mergeFacts(this.fieldWrites.get(key), passed));
    const sources = facts.filter((f) => f.origin.kind === "source");
    if (sources.length) this.s.store(key, sources);
  }

  /**
   * A field or module global: this function's own write if it made one, else its constant
   * value when it is never written, else an implicit parameter the callers fill in.
   */
  protected readKey(key: string, env: Env, loc: Loc): Value {
    const own = env.get(`@${key}`);
    if (own) return own;
    const name = key.split(/\.|::/).pop() ?? key;
    let state: string | undefined;
    if (!this.s.program.writes.get(key) && !this.s.program.writtenNames.has(name)) {
      const init = this.s.program.fieldInit.get(key) ?? this.s.program.globalInit.get(key);
      const k = init ? constOf(init) : undefined;
      if (k !== undefined) return constant(k);
      const loaded = globalConfig(this.s.program, this.s.configs, key, init, this.spec.language);
      if (loaded) return loaded;
      state = initState(this.spec, this.module.language, init);
    }
    const read = {
      facts: [{ origin: { kind: "field", key }, steps: [this.step(loc, "step", `read from \`${name}\``)], clean: new Set() }],
    };
    return withState(read as Value, state);
  }

  // ---- calls -----------------------------------------------------------------------------

  protected call(e: Extract<Expr, { k: "call" }>, env: Env): Value {
    // Python makes objects by calling the class: `Job(x)` is `new Job(x)`.
    if (!e.receiver && this.module.language === "python" && !env.has(e.callee) && this.classKey(e.callee)) {
      return this.construct({ k: "new", cls: e.callee, args: e.args, loc: e.loc, text: e.text }, env);
    }
    const receiver = e.receiver ? this.expr(e.receiver, env) : null;
    const args = e.args.map((a) => this.expr(a, env));
    const kwargs = new Map(Object.entries(e.kwargs ?? {}).map(([k, v]) => [k, this.expr(v, env)] as const));
    const loaded = this.configAt(e, receiver, args, kwargs, env);
    if (loaded) return loaded;
    const targets = this.resolve(e, env);
    if (targets.precise.length) return this.applySummaries(targets.precise, e, receiver, args, env);

    const lookup = bundledLookup({ e, receiver, args, kwargs });
    if (lookup) return lookup;
    // Only rules naming the callee can match, unless an imported alias renames it (call-candidates.ts).
    const rules =
      !e.receiver && importedPath(this.module, e, (n) => env.has(n)) !== undefined ? this.spec : callCandidates(this.spec, e.callee);
    const source = isBundled(receiver) ? undefined : rules.sources.find((r) => r.call && this.matches(r.call, e, receiver, env));
    if (source)
      return {
        facts: mergeFacts(
          receiver?.facts.filter((f) => f.origin.kind === "source"),
          [this.sourceFact(source.id, source.label, source.kind, e.loc)],
        ),
      };
    const sanitizer = rules.sanitizers.find((r) => this.matches(r.call, e, receiver, env));
    if (sanitizer)
      return { facts: sanitized(mergeFacts(...args.map((a) => a.facts), ...[...kwargs.values()].map((a) => a.facts)), sanitizer.cwes) };
    for (const rule of rules.sinks)
      if (!rule.call.isNew && this.matches(rule.call, e, receiver, env)) this.checkSink(rule, e, receiver, args, kwargs);
    const state = stateAfter(this.spec, { e, receiver, args, kwargs }, false, (p) => this.matches(p, e, receiver, env), env);
    if (targets.loose.length) return withState(this.applySummaries(targets.loose, e, receiver, args, env), state);

    return withState(this.defaultCall(e, receiver, args, kwargs, env), state);
  }

  /** A configuration file the call loads (config-values.ts), and a weak algorithm it is given (weak-algorithms.ts). */
  private configAt(
    e: Extract<Expr, { k: "call" }>,
    receiver: Value | null,
    args: Value[],
    kwargs: Map<string, Value>,
    env: Env,
  ): Value | undefined {
    const use = this.s.onAlgorithm && algorithmUse(this.spec.language, this.module.file, e, args, kwargs, (x) => fromOfParts(x, env));
    if (use) this.s.onAlgorithm!(use);
    return loadConfig(this.spec.language, this.module, { e, receiver, args, kwargs }, this.s.configs, env);
  }

  protected defaultCall(
    e: Extract<Expr, { k: "call" }>,
    receiver: Value | null,
    args: Value[],
    kwargs: Map<string, Value>,
    env: Env,
  ): Value {
    // A function literal handed to library code (`names.forEach(n -> …)`, `items.map(x => …)`)
    // is called with the receiver's elements.
    if (receiver?.facts.length) {
      for (const arg of e.args) {
        const target = arg.k === "lambda" ? this.s.program.lambdas.get(arg.name) : undefined;
        if (target) this.applySummaries([target], { ...e, callee: target.fn.name }, null, [this.elementOf(receiver)], env);
      }
    }
    const argFacts = mergeFacts(...args.map((a) => a.facts), ...[...kwargs.values()].map((a) => a.facts));
    // `put(k, v)`, `set(k, v)`, `set(section, key, value)` (configparser) with constant keys.
    const put = e.receiver ? setterEntry(e.callee, args) : undefined;
    if (e.receiver && put) {
      // A constant key: the entry is replaced, tainted or not.
      this.storeInto(e.receiver, put.key, { ...put.value }, env);
    } else if (e.receiver && this.spec.mutators.includes(e.callee) && argFacts.length) {
      this.storeInto(chainRoot(e.receiver, this.spec.mutators), null, { facts: argFacts }, env);
    }
    if (receiver && ["get", "getOrDefault", "getProperty", "pop", "remove", "getAttribute"].includes(e.callee) && receiver.keys?.size) {
      const section = e.callee === "get" && args.length === 2 ? sectionKey(args[0]!, args[1]!) : undefined;
      const entry = section !== undefined ? receiver.keys.get(section) : undefined;
      if (entry) return withLoose(entry, receiver.loose);
      const key = args[0]?.konst;
      if (key && key.v !== null) {
        const kv = receiver.keys.get(String(key.v));
        if (kv) return withLoose(kv, receiver.loose);
        return { facts: mergeFacts(receiver.loose, e.callee === "getOrDefault" ? args[1]?.facts : []) };
      }
    }
    const parts = [receiver?.facts ?? [], argFacts];
    const v: Value = { facts: mergeFacts(...parts), via: e.text };
    return v;
  }

  protected construct(e: Extract<Expr, { k: "new" }>, env: Env): Value {
    const args = e.args.map((a) => this.expr(a, env));
    const asCall = { k: "call" as const, callee: e.cls, receiver: null, args: e.args, path: e.cls, loc: e.loc, text: e.text };
    const sanitizer = this.spec.sanitizers.find((r) => r.call.isNew && r.call.names.includes(e.cls));
    if (sanitizer) return { facts: sanitized(mergeFacts(...args.map((a) => a.facts)), sanitizer.cwes), cls: e.cls };
    for (const rule of this.spec.sinks)
      if (rule.call.isNew && rule.call.names.includes(e.cls)) this.checkSink(rule, asCall, null, args, new Map());
    const key = this.classKey(e.cls);
    const ctor = key ? this.s.program.methods(key, this.module.language === "python" ? "__init__" : "<init>", false) : [];
    if (ctor.length) this.applySummaries(ctor, asCall, null, args, env);
    const wraps = e.args.filter((a): a is Extract<Expr, { k: "var" }> => a.k === "var" && env.has(a.name)).map((a) => a.name);
    const state = stateAfter(
      this.spec,
      { e: asCall, receiver: null, args, kwargs: new Map() },
      true,
      (p) => !!p.isNew && p.names.includes(e.cls),
      env,
    );
    return withState(
      { facts: mergeFacts(...args.map((a) => a.facts)), cls: key ?? e.cls, via: e.text, ...(wraps.length ? { wraps } : {}) },
      state,
    );
  }

  /**
   * Functions of the repository a call may reach. `precise`: resolved by the receiver's class
   * or the enclosing class/module, so the repository's code wins over a same-named library
   * rule; `loose`: same name elsewhere, used only when no rule matched.
   */
  protected resolve(e: Extract<Expr, { k: "call" }>, env: Env): { precise: FnRef[]; loose: FnRef[] } {
    const p = this.s.program;
    // Through an import: that module's function, or none for a library (modules.ts).
    const viaImport = importedCall(p, this.module, e, (n) => env.has(n));
    if (viaImport) return viaImport;
    if (!e.receiver) {
      const lambda = env.get(e.callee) ? undefined : p.lambdas.get(e.callee);
      if (lambda) return { precise: [lambda], loose: [] };
      for (let c = this.owner; c; c = this.module.language === "java" && c.includes("$") ? c.slice(0, c.lastIndexOf("$")) : null) {
        const own = p.methods(c, e.callee, true).filter((r) => this.arity(r, e));
        if (own.length) return { precise: own, loose: [] };
      }
      const local = p.byModule.get(this.module.file)?.get(e.callee) ?? [];
      if (local.length) return { precise: local, loose: [] };
      const imported = importOf(this.module, e.callee);
      if (this.module.language === "java")
        return { precise: staticImport(this.typeScope(), imported, e.callee).filter((r) => this.arity(r, e)), loose: [] };
      const loose = imported ? (p.byName.get(e.callee) ?? []).filter((r) => !r.fn.cls) : [];
      return { precise: [], loose: loose.slice(0, 4) };
    }
    if (this.module.language === "java") return { precise: javaTargets(this.typeScope(), e, env, (r) => this.arity(r, e)), loose: [] };
    const r = e.receiver;
    let cls: string | undefined;
    if (r.k === "this" || (r.k === "var" && (r.name === "self" || r.name === "this"))) cls = this.owner ?? undefined;
    else if (r.k === "new") cls = this.classKey(r.cls);
    else if (r.k === "var")
      cls = env.get(r.name)?.cls ?? (!env.has(r.name) ? this.classKey(r.name) : undefined) ?? this.classKey(this.paramTypes.get(r.name));
    if (cls && p.classes.has(cls)) {
      const found = p.methods(cls, e.callee, true).filter((r) => this.arity(r, e));
      if (found.length) return { precise: found, loose: [] };
    }
    const importedAs = r.k === "var" ? importOf(this.module, r.name) : undefined;
    if (importedAs) {
      const mod = importedAs.split(/[./]/).pop();
      const loose = (p.byName.get(e.callee) ?? []).filter((f) => !f.fn.cls && f.module.file.replace(/\.[^.]+$/, "").endsWith(mod ?? "\0"));
      if (loose.length) return { precise: [], loose: loose.slice(0, 4) };
    }
    if (r.k === "var" && pyBuiltinMethod(this.module.language, e.callee)) return { precise: [], loose: [] }; // `data.get`, not a view's
    const named = p.methodsNamed(e.callee).filter((r) => this.arity(r, e));
    return { precise: [], loose: named.length <= 4 ? named : [] };
  }

  /** The key of the repository class `name` names here. */
  protected classKey(name: string | undefined): string | undefined {
    return name ? this.s.program.classKey(this.module, name, this.owner) : undefined;
  }

  private scope?: TypeScope;
  /** What a call used as a receiver resolves to, for its type (a chain `a().b().c()` resolves each link once). */
  private readonly receiverTargets = new WeakMap<Expr, FnRef[]>();

  /**
   * Whether `r` takes as many arguments as `e` passes (or either side has none). Called from
   * inline arrows: the loader (tsx) defines a named closure's name on every call.
   */
  private arity(r: FnRef, e: Extract<Expr, { k: "call" }>): boolean {
    return r.fn.params.length - this.selfOffset(r) === e.args.length || r.fn.params.length === 0 || e.args.length === 0;
  }

  protected typeScope(): TypeScope {
    this.scope ??= {
      program: this.s.program,
      module: this.module,
      owner: this.owner,
      declared: this.paramTypes,
      // Bound, not an arrow property: the loader (tsx) would define the arrow's name per interpreter.
      targets: this.receiverTargetsOf.bind(this),
    };
    return this.scope;
  }

  private receiverTargetsOf(call: Extract<Expr, { k: "call" }>, env: Env): FnRef[] {
    let hit = this.receiverTargets.get(call);
    if (!hit) this.receiverTargets.set(call, (hit = this.resolve(call, env).precise));
    return hit;
  }

  protected selfOffset(ref: FnRef): number {
    const first = ref.fn.params[0]?.name;
    return ref.module.language === "python" && ref.fn.cls && (first === "self" || first === "cls") ? 1 : 0;
  }

  protected applySummaries(targets: FnRef[], e: Extract<Expr, { k: "call" }>, receiver: Value | null, args: Value[], env: Env): Value {
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

  protected checkSink(
    rule: SinkRule,
    e: Extract<Expr, { k: "call" }>,
    receiver: Value | null,
    args: Value[],
    kwargs: Map<string, Value>,
  ): void {
    if (!sinkApplies(rule, { e, receiver, args, kwargs })) {
      // A parser, loader or template known to be configured safely: the sink is judged, and clean.
      if (configuredSafely(rule, { e, receiver, args, kwargs }))
        this.s.onSite?.({ file: this.module.file, loc: e.loc, rule }, [], [], "configured");
      return;
    }
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
    const exprs =
      which === "all"
        ? [...e.args, ...Object.values(e.kwargs ?? {})]
        : which.map((w) => (typeof w === "number" ? e.args[w] : e.kwargs?.[w]));
    this.s.onSite?.({ file: this.module.file, loc: e.loc, rule }, values, rule.receiver && e.receiver ? [...exprs, e.receiver] : exprs);
    for (const v of values)
      for (const fact of v.facts)
        if (!fact.clean.has(rule.cwe)) this.report(fact, rule, this.module.file, e.loc, [this.step(e.loc, "sink", rule.title)]);
  }

  /**
   * An assignment to a field (`name`) or, with `key`, by index on `object`: the rules of the
   * field, or of the object, decide whether it is a sink (`el.innerHTML = x`, `ctx.body = x`,
   * `session[k] = v`, where the key is dangerous too).
   */
  protected checkFieldSink(name: string | null, object: Expr, value: Value, loc: Loc, key?: Value, valueExpr?: Expr): void {
    let paths: string[] | undefined;
    for (const rule of this.spec.fieldSinks ?? []) {
      if (name === null ? !rule.index : !rule.field.test(name)) continue;
      if (rule.notLiteral && (valueExpr?.k === "object" || valueExpr?.k === "array")) continue;
      if (rule.object) {
        paths ??= this.objectPaths(object);
        if (!paths.some((p) => rule.object!.test(p))) continue;
      }
      const values = key ? [key, value] : [value];
      const asSink: SinkRule = { ...rule, call: { names: [name ?? "[]"] } };
      this.s.onSite?.({ file: this.module.file, loc, rule: asSink }, values, []);
      for (const v of values)
        for (const fact of v.facts)
          if (!fact.clean.has(rule.cwe)) this.report(fact, asSink, this.module.file, loc, [this.step(loc, "sink", rule.title)]);
    }
  }

  /** An assigned object's dotted path as written, and with its first name resolved through the imports (`flask.session`). */
  private objectPaths(object: Expr): string[] {
    const written = chainPath(object);
    if (!written) return [];
    const [head, ...rest] = written.split(".");
    const imported = head ? importOf(this.module, head) : undefined;
    return imported ? [written, [imported, ...rest].join(".")] : [written];
  }

  protected report(fact: Fact, rule: SinkRule, file: string, loc: Loc, tail: readonly TraceStep[]): void {
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

  protected matches(p: CallPattern, e: Extract<Expr, { k: "call" }>, receiver: Value | null, env: Env): boolean {
    if (!p.names.includes(e.callee) && !aliasNameMatches(p, this.module, e, (n) => env.has(n))) return false;
    if (p.path && !spellings(e.path, this.module.language).some((t) => p.path!.test(t))) return false;
    if (p.receiver) {
      const r = e.receiver;
      const texts = [
        r ? chainPath(r) : undefined,
        receiver?.via,
        receiver?.cls,
        receiver?.cls ? simpleOf(receiver.cls) : undefined,
        r?.k === "var" ? this.paramTypes.get(r.name) : undefined,
        r?.k === "call" ? r.text : undefined,
        ...(r && this.module.language === "java" ? typeTexts(staticType(this.typeScope(), r, env)) : []),
      ];
      if (!texts.some((t) => spellings(t, this.module.language).some((x) => p.receiver!.test(x)))) return false;
    }
    void env;
    return true;
  }

  protected elementOf(v: Value): Value {
    return { facts: mergeFacts(v.facts, v.loose) };
  }

  protected sourceFact(rule: string, label: string, kind: "remote" | "local", loc: Loc): Fact {
    return {
      origin: { kind: "source", rule, label, sourceKind: kind, at: `${this.module.file}:${loc.line}:${loc.column}` },
      steps: [this.step(loc, "source", label)],
      clean: new Set(),
    };
  }

  protected step(at: Loc, kind: TraceStep["kind"], label: string): TraceStep {
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
