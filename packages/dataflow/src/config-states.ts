/**
 * Configuration sinks gated on input (typestate.ts): the objects whose configuration decides
 * whether parsing, loading or rendering is dangerous — XML parsers resolving external entities,
 * YAML loaders constructing arbitrary types, template environments without autoescape — and
 * the calls that use them. A sink here fires only at the parse/load/render call, only when
 * its input is tainted, and only when the object is (or may be) configured unsafely.
 */
import type { SinkRule, StateRule } from "./spec";

type Extra = Partial<SinkRule> & { message: string; remediation: string };

function rule(prefix: string, id: string, cwe: string, title: string, call: SinkRule["call"], extra: Extra): SinkRule {
  return { id: `${prefix}-${id}`, cwe, title, call, severity: "HIGH", ...extra };
}

const XXE: Extra = {
  message: "Untrusted XML is parsed by a parser that resolves external entities.",
  remediation:
    'Disallow DOCTYPE declarations (`setFeature("http://apache.org/xml/features/disallow-doctype-decl", true)`) or turn off external ' +
    "entities before parsing; in Python use defusedxml or `XMLParser(resolve_entities=False)`; in libxmljs do not pass `noent: true`.",
};
const YAML: Extra = {
  message: "Untrusted YAML is loaded with a schema that can construct arbitrary objects.",
  remediation:
    "Load with a safe schema: SnakeYAML `new Yaml(new SafeConstructor(new LoaderOptions()))`, PyYAML `yaml.safe_load`, js-yaml's default schema.",
};
const TEMPLATE_XSS: Extra = {
  message: "Untrusted data is rendered by a template environment without autoescaping.",
  remediation: 'Turn autoescaping on (`Environment(autoescape=select_autoescape(["html", "xml"]))`) or escape the value.',
  severity: "MEDIUM",
};

// ---- Java ------------------------------------------------------------------------------------

const DOCTYPE = /disallow-doctype-decl/;
export const JAVA_STATES: StateRule[] = [
  {
    name: "xxe",
    create: [
      {
        call: {
          names: ["newInstance", "newFactory", "newDefaultInstance", "newDefaultFactory"],
          path: /^(DocumentBuilderFactory|SAXParserFactory|XMLInputFactory)\./,
        },
        initial: "unsafe",
      },
      { call: { names: ["createXMLReader"], path: /^XMLReaderFactory\.createXMLReader$/ }, initial: "unsafe" },
      { call: { names: ["SAXReader", "SAXBuilder"], isNew: true }, initial: "unsafe" },
    ],
    configure: [
      {
        names: ["setFeature"],
        tests: [
          { arg: 0, text: DOCTYPE },
          { arg: 1, equals: true },
        ],
        makes: "safe",
      },
      {
        names: ["setFeature"],
        tests: [
          { arg: 0, text: /external-general-entities/ },
          { arg: 1, equals: false },
        ],
        makes: "safe",
      },
      {
        names: ["setProperty"],
        tests: [
          { arg: 0, text: /SUPPORT_DTD|supportDTD|IS_SUPPORTING_EXTERNAL_ENTITIES|isSupportingExternalEntities/ },
          { arg: 1, equals: false },
        ],
        makes: "safe",
      },
      {
        names: ["setProperty", "setAttribute"],
        tests: [
          { arg: 0, text: /ACCESS_EXTERNAL_DTD|accessExternalDTD/ },
          { arg: 1, equals: "" },
        ],
        makes: "safe",
      },
      {
        names: ["setFeature"],
        tests: [
          { arg: 0, text: DOCTYPE },
          { arg: 1, equals: false },
        ],
        makes: "unsafe",
      },
    ],
    derive: ["newDocumentBuilder", "newSAXParser", "getXMLReader"],
  },
  // SnakeYAML: `new Yaml()` constructs any class a YAML tag names unless given a SafeConstructor.
  {
    name: "yaml",
    create: [{ call: { names: ["Yaml"], isNew: true }, initial: "unsafe", safeIf: [{ arg: 0, text: /SafeConstructor/ }] }],
    configure: [],
    derive: [],
  },
];

export const JAVA_CONFIG_SINKS: SinkRule[] = [
  rule(
    "java-taint",
    "xxe",
    "CWE-611",
    "XML external entity injection",
    { names: ["parse", "read", "build"] },
    {
      ...XXE,
      args: [0],
      state: { name: "xxe", at: "receiver" },
    },
  ),
  rule(
    "java-taint",
    "xxe",
    "CWE-611",
    "XML external entity injection",
    { names: ["createXMLStreamReader", "createXMLEventReader"] },
    {
      ...XXE,
      args: "all",
      state: { name: "xxe", at: "receiver" },
    },
  ),
  rule(
    "java-taint",
    "deserialization-yaml",
    "CWE-502",
    "Deserialization of untrusted data",
    { names: ["load", "loadAll", "loadAs"] },
    {
      ...YAML,
      args: [0],
      state: { name: "yaml", at: "receiver" },
    },
  ),
];

// ---- Python ----------------------------------------------------------------------------------

/** `autoescape=` given and not false: `True`, `select_autoescape(…)`, a function. */
const AUTOESCAPE_ON = { arg: "autoescape", text: /^(?!(false|False|None|null|0)$)/ };
export const PYTHON_STATES: StateRule[] = [
  {
    name: "xxe",
    create: [
      {
        call: { names: ["XMLParser"], path: /^(lxml\.)?etree\.XMLParser$/ },
        initial: "safe",
        // Older lxml resolves entities by default: letting it fetch them over the network is unsafe too.
        unsafeIf: [
          { arg: "resolve_entities", equals: true },
          { arg: "no_network", equals: false },
        ],
      },
      { call: { names: ["make_parser"], path: /^xml\.sax\.make_parser$/ }, initial: "safe" },
    ],
    configure: [
      {
        names: ["setFeature"],
        tests: [
          { arg: 0, text: /feature_external_(ges|pes)$/ },
          { arg: 1, equals: true },
        ],
        makes: "unsafe",
      },
      {
        names: ["setFeature"],
        tests: [
          { arg: 0, text: /feature_external_(ges|pes)$/ },
          { arg: 1, equals: false },
        ],
        makes: "safe",
      },
    ],
    derive: [],
  },
  // Jinja2 does not autoescape unless told to.
  {
    name: "autoescape",
    create: [
      { call: { names: ["Environment"], path: /^jinja2(\.environment)?\.Environment$/ }, initial: "unsafe", safeIf: [AUTOESCAPE_ON] },
      { call: { names: ["Template"], path: /^jinja2\.Template$/ }, initial: "unsafe", safeIf: [AUTOESCAPE_ON] },
    ],
    configure: [],
    derive: ["from_string", "get_template", "select_template", "get_or_select_template"],
  },
];

export const PYTHON_CONFIG_SINKS: SinkRule[] = [
  rule(
    "py-taint",
    "xxe",
    "CWE-611",
    "XML external entity injection",
    { names: ["fromstring", "parse", "XML"], path: /^(lxml\.)?etree\.(fromstring|parse|XML)$/ },
    {
      ...XXE,
      args: [0, "text", "source"],
      state: { name: "xxe", at: [1, "parser"] },
    },
  ),
  rule(
    "py-taint",
    "xxe-sax",
    "CWE-611",
    "XML external entity injection",
    { names: ["parse", "feed"] },
    {
      ...XXE,
      args: [0, "source", "data"],
      state: { name: "xxe", at: "receiver" },
    },
  ),
  rule(
    "py-taint",
    "xss-template",
    "CWE-79",
    "Cross-site scripting",
    { names: ["render", "render_async", "stream", "generate"] },
    {
      ...TEMPLATE_XSS,
      args: "all",
      state: { name: "autoescape", at: "receiver" },
    },
  ),
];

/** PyYAML: `load` with a loader that constructs Python objects, or with none (the old default). */
export const PYYAML_UNSAFE = { arg: 1, kw: "Loader", text: /(^|\.)C?(Unsafe|Full)?Loader$/, absent: true };

// ---- JavaScript ------------------------------------------------------------------------------

export const JAVASCRIPT_CONFIG_SINKS: SinkRule[] = [
  rule(
    "js-taint",
    "xxe",
    "CWE-611",
    "XML external entity injection",
    { names: ["parseXml", "parseXmlString", "parseXmlAsync"], path: /^libxmljs2?\.(parseXml|parseXmlString|parseXmlAsync)$/ },
    {
      ...XXE,
      args: [0],
      when: { arg: 1, key: "noent", equals: true },
    },
  ),
  rule(
    "js-taint",
    "deserialization-yaml",
    "CWE-502",
    "Deserialization of untrusted data",
    { names: ["load", "loadAll"], path: /^js-yaml\.(load|loadAll)$/ },
    {
      ...YAML,
      args: [0],
      when: { arg: 1, key: "schema", text: /(^|\.)(DEFAULT_FULL_SCHEMA|FULL_SCHEMA)$|unsafe/i },
    },
  ),
];
