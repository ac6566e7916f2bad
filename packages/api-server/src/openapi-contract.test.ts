// The OpenAPI document against the service's behaviour, route by route (issue 17: the document
// said optional where the service required, had no enums, missed statuses and a tag). Each check
// asks the Zod schemas the handlers parse with, or the real app on real PostgreSQL and Redis.
import fc from "fast-check";
import request from "supertest";
import { z } from "zod";
import { randomUUID } from "node:crypto";
import { apiRoutes, API_VERSION } from "./app";
import { buildOpenApi } from "./http/openapi";
import { isRateLimitExempt } from "./http/rate-limit";
import { API_PREFIX, type AnyRoute } from "./http/route";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

interface Schema {
  type?: string;
  enum?: unknown[];
  pattern?: string;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
}
interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  schema: Schema;
}
interface Operation {
  tags: string[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
}
interface Doc {
  tags: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
}

const SPEC_TAGS = ["Health", "Profile", "Public Scan", "Admin", "Scan", "GenAI", "Vulnerabilities"];
const BOGUS = "__not-a-value__";

let h: ApiHarness;
let routes: AnyRoute[];
let doc: Doc;

beforeAll(async () => {
  h = await createApiHarness({ env: { MAX_BODY_BYTES: "4096" } });
  routes = apiRoutes(h.deps);
  doc = (await request(h.app).get("/api/v2/openapi.json")).body as Doc;
});
afterAll(() => h.close());

const docPath = (r: AnyRoute) => `${API_PREFIX}${r.path.replace(/:([A-Za-z_]+)/g, "{$1}")}`;
const operation = (r: AnyRoute) => doc.paths[docPath(r)]![r.method]!;
const name = (r: AnyRoute) => `${r.method.toUpperCase()} ${r.path}`;
const shapeOf = (schema: z.ZodType | undefined): Record<string, z.ZodType> =>
  schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
/** What the handler's schema does with a missing value: refusing it is being required. */
const requiredBySchema = (field: z.ZodType) => !field.safeParse(undefined).success;

/** Every field the document describes, with the Zod schema the route parses it with. */
function fields(r: AnyRoute): { where: string; name: string; doc: Schema; required: boolean; zod: z.ZodType | undefined }[] {
  const op = operation(r);
  const params = (op.parameters ?? [])
    .filter((p) => p.in !== "header")
    .map((p) => ({
      where: p.in,
      name: p.name,
      doc: p.schema,
      required: p.required,
      zod: shapeOf(p.in === "path" ? r.params : r.query)[p.name],
    }));
  const body = op.requestBody?.content["application/json"]?.schema;
  const props = Object.entries(body?.properties ?? {}).map(([k, s]) => ({
    where: "body",
    name: k,
    doc: s,
    required: (body?.required ?? []).includes(k),
    zod: shapeOf(r.body)[k],
  }));
  return [...params, ...props];
}

describe("the OpenAPI document", () => {
  it("is the one generated from the route table", () => {
    expect(doc).toEqual(JSON.parse(JSON.stringify(buildOpenApi(routes, { version: API_VERSION }))));
    expect(routes.length).toBeGreaterThanOrEqual(40);
  });

  it("declares every tag its operations use, the spec's first and in its order (Webhooks included)", () => {
    const declared = doc.tags.map((t) => t.name);
    expect(declared.slice(0, SPEC_TAGS.length)).toEqual(SPEC_TAGS);
    const used = new Set(routes.flatMap((r) => operation(r).tags));
    expect([...used].filter((t) => !declared.includes(t))).toEqual([]);
    expect(declared).toContain("Webhooks");
  });

  it("describes every field the routes parse, and nothing else, with the schema's required flags", () => {
    const wrong: string[] = [];
    for (const r of routes) {
      const described = fields(r);
      for (const f of described) {
        if (!f.zod) wrong.push(`${name(r)}: ${f.where}.${f.name} is documented but not parsed`);
        else if (f.where !== "path" && f.required !== requiredBySchema(f.zod))
          wrong.push(`${name(r)}: ${f.where}.${f.name} documented ${f.required ? "required" : "optional"}, parsed otherwise`);
      }
      for (const [where, schema] of [
        ["path", r.params],
        ["query", r.query],
        ["body", r.body],
      ] as const) {
        for (const k of Object.keys(shapeOf(schema)))
          if (!described.some((f) => f.where === where && f.name === k))
            wrong.push(`${name(r)}: ${where}.${k} is parsed but not documented`);
      }
      const body = operation(r).requestBody?.content["application/json"]?.schema;
      if (body && body.additionalProperties !== false) wrong.push(`${name(r)}: the body does not say that unknown fields are refused`);
      if (r.body && !(r.body instanceof z.ZodObject)) wrong.push(`${name(r)}: the body is not an object schema`);
    }
    expect(wrong).toEqual([]);
    // The fields of the bug report.
    const feedback = routes.find((r) => r.operationId === "aiFeedback")!;
    expect(
      fields(feedback)
        .filter((f) => f.where === "query")
        .map((f) => [f.name, f.required]),
    ).toEqual([
      ["organization_id", true],
      ["group_id", true],
    ]);
  });

  it("lists, for every enum and pattern, what the schema accepts and refuses", () => {
    const wrong: string[] = [];
    for (const r of routes) {
      for (const f of fields(r)) {
        if (!f.zod) continue;
        const list = f.doc.type === "array";
        const s = list ? (f.doc.items ?? {}) : f.doc;
        const at = `${name(r)}: ${f.where}.${f.name}`;
        if (s.enum) {
          const values = s.enum.map(String);
          const accepts = (v: string | string[]) => f.zod!.safeParse(v).success;
          for (const v of values) if (!accepts(list ? [v] : v)) wrong.push(`${at} refuses its documented value ${v}`);
          // Together: a JSON array in a body, comma-separated in a query.
          if (list && !accepts(f.where === "body" ? values : values.join(","))) wrong.push(`${at} refuses its documented values together`);
          const refused = f.zod.safeParse(list ? [BOGUS] : BOGUS);
          if (refused.success) wrong.push(`${at} accepts a value its enum does not list`);
          // A query list names what it takes (the message a user sees).
          else if (list && !values.every((v) => refused.error.issues[0]!.message.includes(v)))
            wrong.push(`${at}: the error does not list every allowed value`);
        }
        if (s.pattern) {
          const re = new RegExp(s.pattern);
          for (const v of fc.sample(fc.stringMatching(re), { numRuns: 25, seed: 17 })) {
            if (!f.zod.safeParse(list ? [v] : v).success) wrong.push(`${at} refuses ${JSON.stringify(v)}, which matches its pattern`);
          }
          if (f.zod.safeParse(list ? ["not a match!"] : "not a match!").success)
            wrong.push(`${at} accepts a value its pattern does not match`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("has an enum or a pattern on every field over a closed set or with a format", () => {
    const constrained = (operationId: string, where: string, field: string) => {
      const r = routes.find((x) => x.operationId === operationId)!;
      const f = fields(r).find((x) => x.where === where && x.name === field);
      const s = f?.doc.type === "array" ? f.doc.items : f?.doc;
      return { at: `${operationId} ${where}.${field}`, enum: s?.enum ?? null, pattern: s?.pattern ?? null };
    };
    const expected: [string, string, string, unknown[] | null, string | null][] = [
      ["updateFinding", "body", "status", ["TO REVIEW", "TRUE POSITIVE", "FALSE POSITIVE", "ACCEPTED RISK", "FIXED"], null],
      ["updateFinding", "body", "severity", ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"], null],
      ["updateFinding", "body", "likelihood", ["HIGH", "MEDIUM", "LOW"], null],
      ["updateFinding", "body", "confidence", ["HIGH", "MEDIUM", "LOW"], null],
      ["aiFeedback", "path", "status", ["true", "false"], null],
      ["listFindings", "query", "severity", ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"], null],
      ["listFindings", "query", "status", ["TO REVIEW", "TRUE POSITIVE", "FALSE POSITIVE", "ACCEPTED RISK", "FIXED"], null],
      ["listFindings", "query", "baseline", ["new", "unchanged", "absent"], null],
      ["listFindings", "query", "ai_class", ["TRUE_POSITIVE", "FALSE_POSITIVE"], null],
      ["listFindings", "query", "ai_action", ["auto_closed", "suggested", "needs_review"], null],
      ["listFindings", "query", "dataflow", ["confirmed", "unconfirmed", "none", "refuted"], null],
      ["listFindings", "query", "sort", ["severity", "ai_confidence", "-ai_confidence"], null],
      ["listFindings", "query", "cwe", null, "^CWE-\\d{1,6}$"],
      ["listScans", "query", "state", ["queued", "running", "completed", "failed", "cancelled"], null],
      // The spec's spelling; the rule the chat service applies to it.
      ["chat", "body", "sessione_id", null, "^[\\w.:@-]{1,128}$"],
      ["chatInOrganization", "body", "sessione_id", null, "^[\\w.:@-]{1,128}$"],
    ];
    expect(expected.map(([op, where, field]) => constrained(op, where, field))).toEqual(
      expected.map(([op, where, field, e, p]) => ({ at: `${op} ${where}.${field}`, enum: e, pattern: p })),
    );
  });

  it("lists the statuses the chain answers on every route: 400, 401 (token routes), 413, 415, 429 (all but the health probes)", () => {
    const wrong: string[] = [];
    for (const r of routes) {
      const listed = Object.keys(operation(r).responses).map(Number);
      const expected = [
        400,
        413,
        415,
        ...(r.auth === "public" ? [] : [401]),
        ...(isRateLimitExempt(`${API_PREFIX}${r.path}`) ? [] : [429]),
        ...(r.enabled ? [404] : []),
      ];
      for (const s of expected) if (!listed.includes(s)) wrong.push(`${name(r)} does not list ${s}`);
      if (r.auth === "public" && listed.includes(401)) wrong.push(`${name(r)} is public but lists 401`);
    }
    expect(wrong).toEqual([]);
    expect(routes.filter((r) => !Object.keys(operation(r).responses).includes("429")).map(name)).toEqual([
      "GET /health",
      "GET /health/ready",
      "GET /metrics",
    ]);
  });
});

describe("the statuses the document lists are the ones the service answers", () => {
  /** A request to the route with fresh ids in the path (the chain answers before any lookup). */
  function call(r: AnyRoute, query = "") {
    const path = `${API_PREFIX}${r.path.replace(/:([A-Za-z_]+)/g, () => randomUUID())}${query}`;
    return request(h.app)[r.method](path);
  }
  const contentType = (r: AnyRoute, status: number) => Object.keys(operation(r).responses[String(status)]?.content ?? {})[0];

  it("on every route: 401 before the body, then 415, 413 and 400 for the body and the query, each documented with its content type", async () => {
    const wrong: string[] = [];
    const check = (r: AnyRoute, what: string, res: request.Response, status: number) => {
      if (res.status !== status) return void wrong.push(`${name(r)} ${what}: ${res.status}, expected ${status}`);
      const type = contentType(r, status);
      if (!type) wrong.push(`${name(r)} ${what}: ${status} is not documented`);
      else if (!String(res.headers["content-type"]).startsWith(type))
        wrong.push(`${name(r)} ${what}: answered ${res.headers["content-type"]}, documented ${type}`);
    };
    for (const r of routes) {
      const token = (t: request.Test) => (r.auth === "public" ? t : t.set("X-AX-KEY", h.tenant.token));
      if (r.auth !== "public")
        check(r, "no token, text body", await call(r).set("Content-Type", "text/plain").send("x".repeat(10_000)), 401);
      check(r, "text body", await token(call(r)).set("Content-Type", "text/plain").send("hello"), 415);
      check(r, "oversized body", await token(call(r)).send({ pad: "x".repeat(10_000) }), 413);
      check(r, "malformed JSON", await token(call(r)).set("Content-Type", "application/json").send("{"), 400);
      check(r, "unknown query parameter", await token(call(r, "?__unknown__=1")), 400);
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});
