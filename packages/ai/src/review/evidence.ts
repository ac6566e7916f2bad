/**
 * What the scanner knows about a finding, as evidence the review model weighs and names in
 * its reasons: the taint analysis's verdict and trace, what the code on the path does to the
 * value (a bound parameter, a numeric conversion, a sanitizer, an allowlist check, constant
 * arguments), the file's role and the kind of code around it.
 *
 * The same function reads a stored finding (the worker's auto-triage, the API's finding
 * detail), a training example (training/review) and a bare snippet the API ran the taint
 * analysis on, so the model sees one kind of evidence everywhere. Everything here is read
 * from the finding and its code; nothing is trusted from the repository beyond its text.
 */
import { stripComments } from "./comments";

/** The fields of a finding the evidence is read from (NormalizedFinding and a stored finding both have them). */
export interface FindingFacts {
  analyzer: string;
  rule_id: string;
  cwe_id: string | null;
  file: string;
  start_line: number;
  end_line?: number;
  /** The finding's own line(s). */
  snippet?: string | null;
  confidence?: string | null;
  dataflow?: {
    status: string;
    reason?: string | null;
    source_kind?: string | null;
    trace?: readonly { kind: string; label: string; file?: string }[];
  } | null;
}

export type DataflowEvidence = "confirmed" | "unconfirmed" | "refuted" | "not-modelled";
export type OpenReason = "entry-parameter" | "unreadable-code" | "not-judged";
export type FileRole = "test" | "example" | "vendored" | "generated" | "build" | "app";
export type CodeKind = "route" | "cli" | "library";
export type SourceClass = "request" | "header-cookie" | "environment" | "file-or-db" | "other";

export interface Evidence {
  language: string;
  /** `analyzer:rule_id`. */
  rule: string;
  dataflow: DataflowEvidence;
  openReasons: OpenReason[];
  sourceKind: "remote" | "local" | null;
  source: SourceClass | null;
  traceSteps: number;
  crossesFiles: boolean;
  confidence: "HIGH" | "MEDIUM" | "LOW" | null;
  /** The sink line's call has only literal arguments. */
  constantArguments: boolean;
  /** Code shapes around the sink (comments removed). */
  boundParameter: boolean;
  numericConversion: boolean;
  sanitizer: boolean;
  allowlist: boolean;
  role: FileRole;
  kind: CodeKind;
}

const LANGUAGES: readonly [RegExp, string][] = [
  [/\.(java)$/i, "java"],
  [/\.(kt|kts)$/i, "kotlin"],
  [/\.(jsp|jspx|jspf)$/i, "jsp"],
  [/\.(py|pyw)$/i, "python"],
  [/\.(js|mjs|cjs|jsx)$/i, "javascript"],
  [/\.(ts|tsx|mts|cts)$/i, "typescript"],
  [/\.(c|h)$/i, "c"],
  [/\.(cc|cpp|cxx|hpp|hh)$/i, "cpp"],
  [/\.(go)$/i, "go"],
  [/\.(rb)$/i, "ruby"],
  [/\.(php)$/i, "php"],
  [/\.(cs)$/i, "csharp"],
  [/\.(sh|bash)$/i, "shell"],
  [/\.(vue|svelte|html?|ejs|hbs|handlebars|j2|jinja2?|twig|ftl)$/i, "template"],
];

export function languageOf(file: string): string {
  for (const [re, name] of LANGUAGES) if (re.test(file)) return name;
  return "other";
}

const ROLES: readonly [RegExp, FileRole][] = [
  [/(^|\/)(node_modules|vendor|vendored|third[_-]?party|bower_components)(\/|$)|\.min\.js$/i, "vendored"],
  [/(^|\/)(generated|__generated__|gen-src)(\/|$)|_pb2\.py$|\.pb\.(go|cc|h)$|\.generated\.\w+$/i, "generated"],
  [
    /(^|\/)(tests?|__tests__|spec|specs|testdata|test-?data|fixtures?|mocks?)(\/|$)|(^|\/)test_[^/]*\.py$|_test\.(py|go)$|[._-](test|spec)\.[a-z]+$|Tests?\.(java|kt)$/i,
    "test",
  ],
  [/(^|\/)(examples?|samples?|demos?|docs?|tutorials?)(\/|$)/i, "example"],
  [
    /(^|\/)(Makefile|Dockerfile|Jenkinsfile|build\.gradle(\.kts)?|pom\.xml|setup\.py|conftest\.py|noxfile\.py|Gruntfile\.js|gulpfile\.js|webpack\.config\.\w+|rollup\.config\.\w+|vite\.config\.\w+)$|(^|\/)(scripts?|tools|build)\/[^/]*\.(sh|py|js|mjs)$/i,
    "build",
  ],
];

/** What the file is for, from its path alone. */
export function fileRole(file: string): FileRole {
  for (const [re, role] of ROLES) if (re.test(file)) return role;
  return "app";
}

const ROUTE =
  /@(Get|Post|Put|Delete|Patch|Request)Mapping\b|@(GET|POST|PUT|DELETE|Path)\b|@Controller\b|@RestController\b|HttpServletRequest\b|\bdoGet\b|\bdoPost\b|@(app|bp|blueprint|router|api)\.(route|get|post|put|delete|patch)\b|\brequest\.(args|form|values|json|GET|POST|data|files|cookies|headers)\b|\b(app|router)\.(get|post|put|delete|patch|all|use)\s*\(|\b(req|ctx)\.(query|params|body|cookies|headers|request)\b/;
const CLI =
  /\bmain\s*\(\s*(final\s+)?String\s*(\[\]\s*\w+|\w+\s*\[\])|__name__\s*==\s*['"]__main__['"]|\bsys\.argv\b|\bargparse\b|\bprocess\.argv\b|\bint\s+main\s*\(/;

export function codeKind(code: string): CodeKind {
  if (ROUTE.test(code)) return "route";
  if (CLI.test(code)) return "cli";
  return "library";
}

const BOUND_CALL =
  /\b(prepareStatement|prepareCall|setString|setInt|setLong|setObject|bindParam|bindValue|setParameter|addValue)\s*\(|\?\s*["'`]\s*[,)]/;
/** A string literal holding a placeholder, followed by a list or tuple of values: `execute("… %s", (x,))`. */
const BOUND_LITERAL = /["'`][^"'`\n]*(\?|\$\d|:\w+|%s)[^"'`\n]*["'`]\s*,\s*[([{]/;
const NUMERIC =
  /\b(Integer\.(parseInt|valueOf)|Long\.(parseLong|valueOf)|Double\.parseDouble|Short\.parseShort|parseInt|parseFloat|Number|int|float|UUID\.fromString|uuid\.UUID)\s*\(/;
const SANITIZER_PARTS = ["escape", "encode", "sanitiz", "quote", "purify", "clean", "htmlspecialchars", "bleach", "normalize", "canonical"];
const SANITIZER_NAMES = new Set(["markupsafe", "dompurify", "esapi"]);
const ALLOWLIST_CALL =
  /\.(contains|includes|has|containsKey|fullmatch|isdigit|isalnum|isnumeric|matches)\s*\(|\bnot\s+in\b|\bin\s+\(|\bswitch\s*\(/;
const ALLOWLIST_CONSTANT = /^(ALLOWED|PERMITTED|VALID|SAFE)/;
/** Code shapes are looked for in at most this much code, on lines at most this long (minified lines say nothing). */
const SHAPE_CHARS = 32 * 1024;
const SHAPE_LINE = 1000;

/** Identifiers of a line, with what follows each (to tell a call from a name). */
function identifiers(line: string): { name: string; call: boolean }[] {
  const out: { name: string; call: boolean }[] = [];
  for (const m of line.matchAll(/[A-Za-z_$][\w$]*/g)) {
    const after = line.slice(m.index + m[0].length).trimStart();
    out.push({ name: m[0], call: after.startsWith("(") });
  }
  return out;
}

function sanitizerOn(line: string): boolean {
  return identifiers(line).some(({ name, call }) => {
    const lower = name.toLowerCase();
    return SANITIZER_NAMES.has(lower) || (call && SANITIZER_PARTS.some((p) => lower.includes(p))) || /^Encode$/.test(name);
  });
}

function allowlistOn(line: string): boolean {
  if (ALLOWLIST_CALL.test(line)) return true;
  return identifiers(line).some(({ name }) => {
    const lower = name.toLowerCase();
    const at = Math.max(lower.indexOf("allow"), lower.indexOf("white"));
    return (at >= 0 && lower.indexOf("list", at) >= 0) || ALLOWLIST_CONSTANT.test(name);
  });
}

/** What the code around the sink does to values, line by line (linear in the code's size). */
function codeShapes(text: string): Pick<Evidence, "boundParameter" | "numericConversion" | "sanitizer" | "allowlist"> {
  const lines = text
    .slice(0, SHAPE_CHARS)
    .split("\n")
    .filter((l) => l.length <= SHAPE_LINE);
  return {
    boundParameter: lines.some((l) => BOUND_CALL.test(l) || BOUND_LITERAL.test(l)),
    numericConversion: lines.some((l) => NUMERIC.test(l)),
    sanitizer: lines.some(sanitizerOn),
    allowlist: lines.some(allowlistOn),
  };
}

/** The arguments of the last call on the line, or null when the line has no call. */
function callArguments(line: string): string | null {
  const open = line.indexOf("(");
  const close = line.lastIndexOf(")");
  if (open < 0 || close <= open) return null;
  return line.slice(open + 1, close);
}

/** Every argument is a literal (strings, numbers, true/false/null/None) or there are none. */
export function constantArguments(snippet: string, file = ""): boolean {
  const line = stripComments(snippet, file).replace(/\s+/g, " ").trim();
  const args = callArguments(line);
  if (args === null) return false;
  const rest = args
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\$]|\\.)*`/g, "")
    .replace(/\b(true|false|null|None|True|False|undefined)\b/g, "")
    .replace(/\b\d[\w.]*\b/g, "");
  return !/[A-Za-z_$]/.test(rest);
}

const SOURCE_CLASSES: readonly [RegExp, SourceClass][] = [
  [/header|cookie/i, "header-cookie"],
  [/request|parameter|query|form|body|url|path variable|socket|network|upload|argument of a route/i, "request"],
  [/environment|env|property|argv|command line|system/i, "environment"],
  [/file|database|result set|stream|read/i, "file-or-db"],
];

function sourceClass(label: string | undefined): SourceClass | null {
  if (!label) return null;
  for (const [re, cls] of SOURCE_CLASSES) if (re.test(label)) return cls;
  return "other";
}

function openReasons(reason: string | null | undefined): OpenReason[] {
  if (!reason) return [];
  const out: OpenReason[] = [];
  if (/did not judge a sink/i.test(reason)) out.push("not-judged");
  if (/parameters of a function nothing|callers the analysis cannot see/i.test(reason)) out.push("entry-parameter");
  if (/could not read/i.test(reason)) out.push("unreadable-code");
  return out;
}

function level(v: string | null | undefined): Evidence["confidence"] {
  const u = (v ?? "").toUpperCase();
  return u === "HIGH" || u === "MEDIUM" || u === "LOW" ? u : null;
}

/**
 * The evidence of a finding, given the code the review reads (the enclosing function with
 * its callers and callees) — comments are removed before any code shape is looked for.
 */
export function evidenceOf(f: FindingFacts, code: string): Evidence {
  const flow = f.dataflow ?? null;
  const status: DataflowEvidence =
    flow?.status === "confirmed" || flow?.status === "unconfirmed" || flow?.status === "refuted" ? flow.status : "not-modelled";
  const trace = flow?.trace ?? [];
  const text = stripComments(code, f.file);
  return {
    language: languageOf(f.file),
    rule: `${f.analyzer}:${f.rule_id}`,
    dataflow: status,
    openReasons: openReasons(flow?.reason),
    sourceKind: flow?.source_kind === "remote" || flow?.source_kind === "local" ? flow.source_kind : null,
    source: status === "confirmed" ? sourceClass(trace[0]?.label) : null,
    traceSteps: trace.length,
    crossesFiles: new Set(trace.map((s) => s.file ?? f.file)).size > 1,
    confidence: level(f.confidence),
    constantArguments: constantArguments(f.snippet ?? "", f.file),
    ...codeShapes(text),
    role: fileRole(f.file),
    kind: codeKind(text.slice(0, SHAPE_CHARS)),
  };
}

/**
 * The evidence as named binary features (value 1), each with the words a reason uses. The
 * names are stable: the model's weights for them are looked up by name for the reasons.
 */
export function evidenceFeatures(ev: Evidence): { name: string; words: string }[] {
  const out: { name: string; words: string }[] = [];
  const add = (name: string, words: string): void => void out.push({ name: `ev:${name}`, words });
  const flowWords: Record<DataflowEvidence, string> = {
    confirmed: `the taint analysis traced ${ev.source ? SOURCE_WORDS[ev.source] : "untrusted data"} to this sink`,
    unconfirmed: "the taint analysis covers this weakness but traced no untrusted source to this sink",
    refuted: "the taint analysis judged this sink safe",
    "not-modelled": "the taint analysis does not model this kind of finding",
  };
  add(`flow:${ev.dataflow}`, flowWords[ev.dataflow]);
  for (const r of ev.openReasons) add(`open:${r}`, OPEN_WORDS[r]);
  if (ev.sourceKind)
    add(
      `sourcekind:${ev.sourceKind}`,
      ev.sourceKind === "remote"
        ? "the data comes from a request"
        : "the data comes from the host (environment, files, properties), not a request",
    );
  if (ev.source) add(`source:${ev.source}`, `the data comes from ${SOURCE_WORDS[ev.source]}`);
  if (ev.dataflow === "confirmed")
    add(`steps:${ev.traceSteps <= 2 ? "short" : ev.traceSteps <= 6 ? "medium" : "long"}`, `the trace has ${ev.traceSteps} steps`);
  if (ev.crossesFiles) add("crossfile", "the trace crosses files");
  if (ev.confidence) add(`conf:${ev.confidence}`, `the analyzer's own confidence is ${ev.confidence.toLowerCase()}`);
  if (ev.constantArguments) add("const-args", "the sink's arguments are constants");
  if (ev.boundParameter) add("bound", "the value reaches the query only as a bound parameter");
  if (ev.numericConversion) add("numeric", "the value is converted to a number on the way");
  if (ev.sanitizer) add("sanitizer", "an escaping or sanitizing call is on the path");
  if (ev.allowlist) add("allowlist", "the value is checked against an allowlist or pattern");
  // Application code is the baseline every other role is weighed against: not a reason by itself.
  if (ev.role !== "app") add(`role:${ev.role}`, ROLE_WORDS[ev.role]);
  add(`kind:${ev.kind}`, KIND_WORDS[ev.kind]);
  return out;
}

/**
 * The direction each piece of evidence can weigh, where security knowledge says it: a traced
 * path from a request makes a finding likelier real; a bound parameter, a conversion to a
 * number, a sanitizer, an allowlist, constant arguments, test or vendored code, the
 * analyzer's own low confidence and a refutation make it likelier false. Training keeps
 * these weights on their side of zero (a weight can shrink to nothing, never flip): a
 * suite whose safe twins happen to use prepared statements more often than its flaws
 * cannot teach the model that binding parameters is a sign of injection. The rest
 * (whether the analysis modelled the finding, its open reasons, the code's kind) is learned
 * freely.
 */
const SIGNS: readonly [RegExp, 1 | -1][] = [
  [/^ev:(flow:confirmed|source:|sourcekind:remote|conf:HIGH)/, 1],
  [/^prior:rule$/, 1],
  [/^ev:(flow:refuted|bound|numeric|sanitizer|allowlist|const-args|conf:LOW|role:(test|example|vendored|generated|build))/, -1],
];

/** The known direction of a feature (its family crosses `name|family` included), or undefined. */
export function evidenceSign(name: string): 1 | -1 | undefined {
  const base = name.split("|")[0] as string;
  for (const [re, sign] of SIGNS) if (re.test(base)) return sign;
  return undefined;
}

const SOURCE_WORDS: Record<SourceClass, string> = {
  request: "request data",
  "header-cookie": "a request header or cookie",
  environment: "the environment or configuration",
  "file-or-db": "a file or database read",
  other: "an untrusted source",
};

const OPEN_WORDS: Record<OpenReason, string> = {
  "not-judged": "the taint analysis did not judge a sink call here",
  "entry-parameter": "the value comes from parameters of a function nothing in the repository calls",
  "unreadable-code": "the path crosses code the analysis could not read",
};

const ROLE_WORDS: Record<FileRole, string> = {
  test: "the file is test code",
  example: "the file is example or documentation code",
  vendored: "the file is vendored third-party code",
  generated: "the file is generated code",
  build: "the file is a build or tooling script",
  app: "the file is application code",
};

const KIND_WORDS: Record<CodeKind, string> = {
  route: "the code handles requests",
  cli: "the code is a command-line entry point",
  library: "the code is a library function (no request handling in view)",
};
