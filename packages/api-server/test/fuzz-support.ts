/**
 * Property-based fuzzing of the HTTP API, driven by the OpenAPI document: arbitraries for
 * valid requests (a converter from the JSON Schema subset the document uses), mutations that
 * make them invalid one dimension at a time, and the contract every answer must keep.
 * fuzz.test.ts runs them against the real app; nothing here does I/O.
 */
import fc from "fast-check";
import type { AnyRoute } from "../src/http/route";
import { ErrorBody } from "@ax/contracts";

export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  default?: unknown;
  description?: string;
}

interface ParameterDoc {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  schema: JsonSchema;
}

export interface OperationDoc {
  operationId: string;
  security?: unknown[];
  parameters?: ParameterDoc[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { description: string; content?: Record<string, unknown> }>;
}

export interface OpenApiDoc {
  paths: Record<string, Record<string, OperationDoc>>;
}

export type Method = "get" | "post" | "put" | "patch" | "delete";

export interface Operation {
  /** "POST /api/v2/scan/{scan_id}/cancel" */
  key: string;
  method: Method;
  path: string;
  doc: OperationDoc;
  /** The route definition, for the Zod response schemas the document was written from. */
  route: AnyRoute;
  isPublic: boolean;
  /** Every documented answer is Markdown (the chat routes). */
  isMarkdown: boolean;
  params: ParameterDoc[];
  query: ParameterDoc[];
  headers: ParameterDoc[];
  body: JsonSchema | undefined;
}

/** Statuses any operation may answer besides its documented ones. */
export const CROSS_CUTTING = [400, 401, 403, 404, 409, 412, 413, 415, 429];

/** Every operation of the document, with the route definition it was generated from. */
export function operationsOf(doc: OpenApiDoc, routes: AnyRoute[]): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const route = routes.find((r) => r.method === method && `/api/v2${r.path.replace(/:([A-Za-z_]+)/g, "{$1}")}` === path);
      if (!route) throw new Error(`No route definition for ${method.toUpperCase()} ${path}`);
      const types = Object.values(op.responses).flatMap((r) => Object.keys(r.content ?? {}));
      const params = op.parameters ?? [];
      ops.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method as Method,
        path,
        doc: op,
        route,
        isPublic: Array.isArray(op.security) && op.security.length === 0,
        isMarkdown: types.length > 0 && types.every((t) => t.startsWith("text/markdown")),
        params: params.filter((p) => p.in === "path"),
        query: params.filter((p) => p.in === "query"),
        headers: params.filter((p) => p.in === "header"),
        body: op.requestBody?.content["application/json"]?.schema,
      });
    }
  }
  return ops;
}

// ---------------------------------------------------------------------------------------
// Requests

export const ID_NAMES = [
  "organization_id",
  "group_id",
  "project_id",
  "scan_id",
  "finding_id",
  "token_id",
  "request_id",
  "webhook_id",
  "job_id",
] as const;
export type IdName = (typeof ID_NAMES)[number];
export const isIdName = (n: string): n is IdName => (ID_NAMES as readonly string[]).includes(n);

/** An object of one of the two tenants, resolved to a real id when the case runs. */
export class Ref {
  constructor(
    readonly tenant: "self" | "other",
    readonly name: IdName,
  ) {}
  toString(): string {
    return `<${this.tenant}.${this.name}>`;
  }
}

export type Val = string | Ref;
export type Role = "owner" | "member" | "viewer" | "other";
export type Auth =
  | { kind: "role"; role: Role }
  | { kind: "none" }
  | { kind: "known-bad"; which: "expired" | "revoked" | "unknown" }
  | { kind: "garbage"; value: string }
  | { kind: "in-query" };
export type Body = { kind: "json"; value: unknown } | { kind: "raw"; data: string | Buffer; contentType: string };

export interface FuzzCase {
  kind: string;
  params: Record<string, Val>;
  query: [string, Val][];
  headers: Record<string, string>;
  auth: Auth;
  body?: Body;
  /** Values planted in the request that an error answer must not echo. */
  secrets: string[];
  /** The statuses the mutation leaves possible, when it decides the outcome. */
  expect?: number[];
}

/** Domain knowledge for one field: given the schema-derived arbitrary, the one to use. */
export type Hints = Record<string, (fromSchema: fc.Arbitrary<unknown>) => fc.Arbitrary<unknown>>;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** URLs cannot carry lone surrogates (encodeURIComponent throws); JSON bodies can. */
export const wellFormed = (s: string): string => s.replace(LONE_SURROGATE, "\ufffd");

/** Strings that have broken parsers, databases and terminals before. None is a URL. */
export const NASTY = [
  "\u0000",
  "\u0007",
  "\u001b[31m",
  "\r\n",
  "\t",
  "\u2028",
  "\u202e",
  "\ufeff",
  "\u200b",
  "\ud800",
  "\udfff",
  "\uffff",
  "🙂",
  "👩‍💻",
  "e\u0301\u0301\u0301",
  "Ω≈ç√",
  "ﷺ",
  "<script>alert(1)</script>",
  "'; DROP TABLE scans;--",
  "%00",
  "%2e%2e%2f",
  "../../etc/passwd",
  "${jndi:x}",
  "{{7*7}}",
  "\\",
  '"',
  "null",
  "__proto__",
  "constructor",
  "NaN",
  "-1",
  "1e309",
  " ",
  "",
];

/** A string of `min`..`max` UTF-16 units: mostly printable ASCII, sometimes any code point or a nasty one. */
export function text(min: number, max: number): fc.Arbitrary<string> {
  const cap = Math.min(max, min + 40);
  const fits = (s: string) => s.length >= min && s.length <= max;
  const arbs: fc.WeightedArbitrary<string>[] = [
    { weight: 6, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: min, maxLength: cap }) },
    { weight: 2, arbitrary: fc.string({ unit: "grapheme", minLength: min, maxLength: cap }).filter(fits) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: min, maxLength: cap }).filter(fits) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.constantFrom(...NASTY), { minLength: 1, maxLength: 3 })
        .map((a) => a.join(""))
        .filter(fits),
    },
  ];
  if (max < 20_000 && max > cap)
    arbs.push({ weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: Math.max(min, max - 3), maxLength: max }) });
  return fc.oneof(...arbs);
}

/** Values valid for a JSON Schema, for the subset the document uses; anything else is refused. */
export function fromSchema(s: JsonSchema): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.anyOf) return fc.oneof(...s.anyOf.map(fromSchema));
  switch (s.type) {
    case "string": {
      const min = s.minLength ?? 0;
      const max = s.maxLength ?? 20_000;
      if (s.pattern) return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= min && v.length <= max);
      return text(min, max);
    }
    case "integer":
    case "number": {
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1e6);
      const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 1e6);
      return s.type === "integer" ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(s.items ? fromSchema(s.items) : fc.jsonValue(), { maxLength: 4 });
    case "object":
      return objectOf(s, {}, "body");
    case undefined:
      if (Object.keys(s).every((k) => k === "description" || k === "default")) return fc.jsonValue();
  }
  throw new Error(`fromSchema: unsupported JSON Schema ${JSON.stringify(s)}; extend the converter`);
}

/** A field's arbitrary: hint, else a reference to a real object for id fields, else the schema. */
function field(where: string, name: string, schema: JsonSchema, hints: Hints): fc.Arbitrary<unknown> {
  const base = fromSchema(schema);
  const hint = hints[`${where}.${name}`];
  if (hint) return hint(base);
  // Header values are Latin-1 on the wire; Node refuses anything else before sending.
  if (where === "header") return fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 64 });
  if (isIdName(name)) return fc.oneof({ weight: 5, arbitrary: fc.constant(new Ref("self", name)) }, { weight: 1, arbitrary: base });
  return base;
}

function objectOf(s: JsonSchema, hints: Hints, where: string): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.entries(s.properties ?? {});
  const model = Object.fromEntries(props.map(([k, p]) => [k, field(where, k, p, hints)]));
  return fc.record(model, { requiredKeys: s.required ?? [] }) as fc.Arbitrary<Record<string, unknown>>;
}

const pathSafe = (v: unknown): v is Val => v instanceof Ref || (typeof v === "string" && v.length > 0 && v !== "." && v !== "..");

/** Requests the document calls valid, mostly about real objects of the caller's tenant. */
export function validCase(op: Operation, hints: Hints): fc.Arbitrary<FuzzCase> {
  const params = fc.record(
    Object.fromEntries(op.params.map((p) => [p.name, field("path", p.name, { minLength: 1, ...p.schema }, hints).filter(pathSafe)])),
  ) as fc.Arbitrary<Record<string, Val>>;
  const query = fc.record(Object.fromEntries(op.query.map((p) => [p.name, field("query", p.name, p.schema, hints)])), {
    requiredKeys: op.query.filter((p) => p.required).map((p) => p.name),
  });
  const headers = fc.record(Object.fromEntries(op.headers.map((p) => [p.name, field("header", p.name, p.schema, hints)])), {
    requiredKeys: [],
  });
  const body = op.body ? objectOf(op.body, hints, "body").map((value): Body => ({ kind: "json", value })) : fc.constant(undefined);
  return fc.record({ params, query, headers, body }).map(({ params, query, headers, body }) => ({
    kind: "valid",
    params,
    query: Object.entries(query).flatMap(([k, v]) =>
      (Array.isArray(v) ? v : [v]).map((x): [string, Val] => [k, x instanceof Ref ? x : wellFormed(String(x))]),
    ),
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)])),
    auth: op.isPublic ? { kind: "none" } : { kind: "role", role: "owner" },
    ...(body ? { body } : {}),
    secrets: [],
  }));
}

// ---------------------------------------------------------------------------------------
// The contract of an answer.

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const mediaType = (v: string | undefined) => (v ?? "").split(";")[0]!.trim().toLowerCase();
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * What is wrong with an answer, as short stable sentences (empty: nothing). `secrets` are
 * the credentials sent (never echoed, whatever the status); `c.secrets` were planted in the
 * input and must not come back in an error.
 */
export function contractViolations(op: Operation, c: FuzzCase, res: Answer, secrets: string[], crossTenant: boolean): string[] {
  const out: string[] = [];
  const { status } = res;
  const documented = op.doc.responses[String(status)];
  if (status >= 500) out.push(`server error ${status}`);
  else if (!documented && !CROSS_CUTTING.includes(status)) out.push(`undocumented status ${status}`);
  else if (c.expect && !c.expect.includes(status)) out.push(`status ${status}, expected ${c.expect.join(" or ")}`);
  if (crossTenant && status < 300) out.push(`another tenant's object answered ${status}`);

  const type = mediaType(res.headers["content-type"] as string | undefined);
  const types = op.isMarkdown ? ["text/markdown"] : Object.keys(documented?.content ?? {}).map(mediaType);
  const expected = types.length ? types : ["application/json"];
  if (!expected.includes(type)) out.push(`content type ${type || "(none)"} for ${status}, documented ${expected.join(" or ")}`);

  if (op.isMarkdown) {
    if (status >= 400 && !res.text.startsWith(`**Error ${status}.** `))
      out.push(`Markdown error ${status} does not start with "**Error ${status}.**"`);
    if (status < 300 && res.text.trim() === "") out.push("empty Markdown answer");
  } else if (type.endsWith("json")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(res.text);
    } catch {
      out.push(`${status} body is not JSON`);
    }
    const schema = op.route.responses[status]?.schema ?? (status >= 400 ? ErrorBody : undefined);
    if (parsed !== undefined && schema) {
      const r = schema.safeParse(parsed);
      if (!r.success)
        out.push(
          `${status} body does not match its schema at ${r.error.issues[0]?.path.join(".") || "(root)"}: ${r.error.issues[0]?.message}`,
        );
      else if (status >= 400 && (parsed as { code?: unknown }).code !== status)
        out.push(`error body code ${(parsed as { code?: unknown }).code} for status ${status}`);
    }
  }

  const rid = res.headers["x-request-id"];
  if (typeof rid !== "string" || !REQUEST_ID.test(rid)) out.push("X-Request-Id missing or malformed");
  const headerText = Object.values(res.headers).flat().join("\n");
  for (const s of secrets) if (s && (res.text.includes(s) || headerText.includes(s))) out.push("echoes the credential it was sent");
  if (status >= 400)
    for (const s of c.secrets) if (res.text.includes(s) || headerText.includes(s)) out.push("error echoes a secret-looking input value");
  return out;
}
