/**
 * What a language's table tells the taint analysis: where untrusted data comes from
 * (sources), which calls are dangerous with it (sinks, one CWE each), and which calls make
 * it safe (sanitizers). Tables are data: java-spec.ts, python-spec.ts, javascript-spec.ts.
 *
 * Matching: a call matches a `CallPattern` when its callee name is one of `names` and, if
 * given, `path` matches the call's dotted callee path after import resolution (`os.system`,
 * `child_process.exec`) or `receiver` matches the receiver's dotted text or declared type
 * (`request`, `HttpServletRequest`). Java paths and receivers are also tried without their
 * package (`java.nio.file.Paths.get` matches `^Paths\.get$`, call-names.ts). Patterns should be
 * specific enough that a method of the same name on an unrelated object does not match where
 * that would be common.
 */
import type { Severity, Level } from "@ax/contracts";
import type { ConstValue } from "./ir";

export interface CallPattern {
  /** Callee names (`getParameter`, `execute`, `system`). */
  names: readonly string[];
  /** Regex tested against the resolved dotted path of the callee (`^os\.system$`). */
  path?: RegExp;
  /** Regex tested against the receiver's dotted text or its declared type. */
  receiver?: RegExp;
  /** For `new` expressions: match `new Cls(...)` with `names` being class names. */
  isNew?: boolean;
}

/** How far a source is from an attacker: a request is "remote"; env, files, properties are "local". */
export type SourceKind = "remote" | "local";

export interface SourceRule {
  id: string;
  /** A call whose result is untrusted. */
  call?: CallPattern;
  /** A field or name chain whose value is untrusted, by its dotted path (`^req\.(query|body|params)\b`). */
  field?: RegExp;
  kind: SourceKind;
  /** For the trace: "HTTP request parameter", "environment variable". */
  label: string;
}

export interface SinkRule {
  id: string;
  call: CallPattern;
  /** At most this confidence for its findings (a sink that is dangerous only in some uses, such as template data). */
  confidence?: Level;
  /**
   * Which arguments are dangerous when tainted: indexes (0-based), "all", or keyword names
   * (Python). Default [0].
   */
  args?: readonly (number | string)[] | "all";
  /** Also a sink when the receiver is tainted (`taintedString.execute()` is rare; leave unset). */
  receiver?: boolean;
  /**
   * Only a sink when this holds for the call, e.g. Python `subprocess.run(cmd, shell=True)`:
   * a keyword that must be present with a truthy constant.
   */
  requireKwarg?: { name: string; truthy: boolean };
  /**
   * Only a sink when this holds for the call's own options, e.g. js-yaml `load(x, { schema: FULL_SCHEMA })`,
   * libxmljs `parseXml(x, { noent: true })`, PyYAML `load(x, Loader=yaml.Loader)`.
   */
  when?: ArgTest;
  /** Not a sink when this holds (`Files.readAllBytes(Paths.get(x))`: the `Paths.get` sink reports that path already). */
  unless?: ArgTest;
  /**
   * Only a sink when an object of the call is configured unsafely (typestate.ts): the receiver
   * (`db.parse(x)` on a DocumentBuilder from a factory without the DOCTYPE feature) or an argument
   * (lxml `fromstring(x, parser)`), in the state named by a `StateRule`.
   */
  state?: { name: string; at: "receiver" | readonly (number | string)[] };
  cwe: string;
  title: string;
  message: string;
  severity: Severity;
  remediation: string;
}

/** What a sink table gives besides id, CWE, title and call: always the message and the remediation. */
export type SinkExtra = Partial<SinkRule> & { message: string; remediation: string };

/**
 * The sink constructor of one language's tables: ids get the language's prefix
 * (`java-taint-`, `py-taint-`, `js-taint-`) and sinks are HIGH unless `extra` says otherwise.
 */
export function sinkMaker(prefix: string) {
  return (id: string, cwe: string, title: string, call: SinkRule["call"], extra: SinkExtra): SinkRule => ({
    id: `${prefix}${id}`,
    cwe,
    title,
    call,
    severity: "HIGH",
    ...extra,
  });
}

/** An assignment to a field that is a sink (`el.innerHTML = x`, `response.headers[...] = x`). */
export interface FieldSinkRule {
  id: string;
  /** Regex on the assigned field's name (`^(innerHTML|outerHTML)$`). */
  field: RegExp;
  /**
   * Regex on the assigned object's dotted path, as written or through its import
   * (`^ctx$` for Koa's `ctx.body = x`, `^(flask\.)?session$`); any object when unset.
   */
  object?: RegExp;
  /**
   * Also an assignment by index on such an object (`session[key] = value`): the key as well as
   * the value is dangerous. Needs `object`.
   */
  index?: boolean;
  /** Not when the assigned value is an object or array literal (sent as JSON, not as markup). */
  notLiteral?: boolean;
  cwe: string;
  title: string;
  message: string;
  severity: Severity;
  remediation: string;
}

/**
 * A test on one argument of a call: its constant value, or the text of what is passed (the
 * dotted name `yaml.SafeLoader`, the call `new SafeConstructor(…)`, the class of the object).
 */
export interface ArgTest {
  /** Position, or keyword name (Python); `kw` also accepts the keyword form of a positional. */
  arg: number | string;
  kw?: string;
  /** A key of an options object passed there (`{ noent: true }`). */
  key?: string;
  equals?: ConstValue;
  text?: RegExp;
  /** The test also holds when the argument (or key) is absent. */
  absent?: boolean;
}

/**
 * The configuration state of an object (typestate): which calls make one, which calls configure
 * it safely or unsafely, and which calls hand it on (`factory.newDocumentBuilder()`). Sinks name
 * the state in `SinkRule.state` and fire only on an object in `name:unsafe`.
 */
export interface StateRule {
  name: string;
  create: readonly { call: CallPattern; initial: "safe" | "unsafe"; safeIf?: readonly ArgTest[]; unsafeIf?: readonly ArgTest[] }[];
  /** Calls on the object that change its state when all of `tests` hold. */
  configure: readonly { names: readonly string[]; tests: readonly ArgTest[]; makes: "safe" | "unsafe" }[];
  /** Calls on the object that return an object in the same state. */
  derive: readonly string[];
}

export interface SanitizerRule {
  id: string;
  call: CallPattern;
  /** CWEs the result is safe for; "*" for all (a number conversion). */
  cwes: readonly string[] | "*";
}

export interface LanguageSpec {
  language: "java" | "python" | "javascript";
  sources: readonly SourceRule[];
  sinks: readonly SinkRule[];
  fieldSinks?: readonly FieldSinkRule[];
  sanitizers: readonly SanitizerRule[];
  /**
   * Methods that store an argument into their receiver (`list.add(x)`, `sb.append(x)`,
   * `map.put(k, x)`, `out.writeObject(x)`): a tainted argument taints the receiver.
   */
  mutators: readonly string[];
  /** Field paths on a request object that hold server-side state, not input (`req.session`): reading them is not a source. */
  serverState?: RegExp;
  /** Configuration states of objects (XML parsers, YAML loaders, template environments). */
  states?: readonly StateRule[];
  /** Confidence of a finding by source kind. */
  confidence?: Partial<Record<SourceKind, Level>>;
}
