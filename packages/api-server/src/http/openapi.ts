import { z } from "zod";
import { isRateLimitExempt } from "./rate-limit";
import { API_PREFIX, type AnyRoute, type ResponseDoc } from "./route";
import { ErrorBody } from "@ax/contracts";
import { queryLists } from "./schemas";

/** The tags of the spec (§1), in its order; tags only this service uses follow, as routes name them. */
const SPEC_TAGS = ["Health", "Profile", "Public Scan", "Admin", "Scan", "GenAI", "Vulnerabilities"];

/**
 * What the chain every route runs through (route.ts mountRoute, app.ts) can answer, whatever the
 * handler does: the OpenAPI document lists these where a route does not describe them itself.
 */
export function chainResponses(r: AnyRoute): Record<number, ResponseDoc> {
  const error = (description: string): ResponseDoc =>
    r.errorWriter ? { description, contentType: r.errorContentType ?? "text/plain" } : { description, schema: ErrorBody };
  const out: Record<number, ResponseDoc> = {
    400: error(
      "Invalid input: a malformed percent-escape in the path or query, an unknown query parameter, malformed JSON, or a value the schema refuses; " +
        "the message names the field, never its value.",
    ),
  };
  if (r.auth !== "public")
    out[401] = error("Missing, malformed, unknown, expired or revoked token. Checked before any input, the body included.");
  if (r.enabled) out[404] = error("The endpoint is switched off in this deployment.");
  out[413] = error("The request body is larger than MAX_BODY_BYTES.");
  out[415] = error("A request body that is not UTF-8 JSON (Content-Type: application/json).");
  if (!isRateLimitExempt(`${API_PREFIX}${r.path}`))
    out[429] = error("A rate limit (of the client IP, or of the token) is spent; see Retry-After and the RateLimit-* headers.");
  return out;
}

/** OpenAPI 3.1 from the same route definitions and Zod schemas that validate requests. */
export function buildOpenApi(routes: AnyRoute[], opts: { version: string; serverUrl?: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = `${API_PREFIX}${r.path.replace(/:([A-Za-z_]+)/g, "{$1}")}`;
    const parameters = [
      ...objectParams(r.params, "path"),
      ...objectParams(r.query, "query"),
      ...(r.headers ?? []).map((h) => ({
        name: h.name,
        in: "header",
        required: h.required ?? false,
        description: h.description,
        schema: { type: "string" },
      })),
    ];
    const responses: Record<string, unknown> = {};
    const all = { ...chainResponses(r), ...r.responses };
    for (const status of Object.keys(all)
      .map(Number)
      .sort((a, b) => a - b)) {
      const doc = all[status]!;
      const type = doc.contentType ?? "application/json";
      const content: Record<string, unknown> =
        doc.schema || doc.contentType ? { [type]: doc.schema ? { schema: toSchema(doc.schema, "output") } : {} } : {};
      for (const alt of doc.alternatives ?? []) content[alt.contentType] = alt.schema ? { schema: toSchema(alt.schema, "output") } : {};
      responses[status] = { description: doc.description, ...(Object.keys(content).length ? { content } : {}) };
    }
    (paths[path] ??= {})[r.method] = {
      operationId: r.operationId,
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: r.tags,
      ...(r.auth === "public" ? { security: [] } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(r.body ? { requestBody: { required: true, content: { "application/json": { schema: toSchema(r.body, "input") } } } } : {}),
      responses,
    };
  }
  const used = [...new Set(routes.flatMap((r) => r.tags))];
  return {
    openapi: "3.1.0",
    info: {
      title: "Code Scanning and AI Review Service",
      version: opts.version,
      description:
        "Scans git repositories for vulnerabilities, manages findings, and gives AI help on them. Authenticate with a personal access token in the " +
        "X-AX-KEY header. A method an existing path does not take answers 405 with an `Allow` header; OPTIONS answers 204 with the same header.",
    },
    servers: [{ url: opts.serverUrl ?? "/" }],
    security: [{ ApiKeyAuth: [] }],
    components: { securitySchemes: { ApiKeyAuth: { type: "apiKey", in: "header", name: "X-AX-KEY" } } },
    tags: [...SPEC_TAGS, ...used.filter((t) => !SPEC_TAGS.includes(t))].map((name) => ({ name })),
    paths,
  };
}

function toSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    target: "draft-2020-12",
    override: ({ zodSchema, jsonSchema }) => {
      // A list-valued query parameter: documented as the array it is, not as Zod's "string or array of strings".
      const list = queryLists.get(zodSchema as unknown as z.ZodType);
      if (!list) return;
      const description = jsonSchema.description;
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Record<string, unknown>)[key];
      Object.assign(jsonSchema, { type: "array", items: list.items, ...(description ? { description } : {}) });
    },
  }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

function objectParams(schema: z.ZodType | undefined, where: "path" | "query") {
  if (!schema) return [];
  const json = toSchema(schema, "input") as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === "path" || (json.required ?? []).includes(name),
    ...(s.type === "array" ? { style: "form", explode: false } : {}),
    schema: s,
  }));
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The reference page's stylesheet. */
const DOCS_STYLE = [
  "body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1b1f24}",
  "code,pre{font-family:ui-monospace,monospace}pre{background:#f4f5f7;padding:.75rem;overflow:auto}",
  "section{border-top:1px solid #ddd;padding:.5rem 0}",
  ".m{display:inline-block;min-width:4.5em;font-size:.8em;padding:.1em .4em;border-radius:3px;color:#fff;background:#555}",
  ".get{background:#1f6feb}.post{background:#2da44e}.put{background:#bf8700}.delete{background:#cf222e}",
].join("");

/** A self-contained reference page (no CDN scripts, so the default CSP holds). */
export function renderDocsPage(doc: ReturnType<typeof buildOpenApi>): string {
  const ops: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      const op = raw as {
        summary: string;
        description?: string;
        tags: string[];
        security?: unknown[];
        parameters?: { name: string; in: string; required: boolean }[];
        requestBody?: { content: Record<string, { schema: unknown }> };
        responses: Record<string, { description: string }>;
      };
      const params = (op.parameters ?? [])
        .map((p) => `<li><code>${esc(p.name)}</code> (${p.in}${p.required ? ", required" : ""})</li>`)
        .join("");
      const body = op.requestBody
        ? `<details><summary>Request body</summary><pre>${esc(JSON.stringify(op.requestBody.content["application/json"]?.schema, null, 2))}</pre></details>`
        : "";
      const responses = Object.entries(op.responses)
        .map(([s, r]) => `<li><b>${s}</b> ${esc(r.description)}</li>`)
        .join("");
      const title = `<span class="m ${method}">${method.toUpperCase()}</span> <code>${esc(path)}</code>${op.security ? " <small>public</small>" : ""}`;
      const about = `<p>${esc(op.summary)}</p>${op.description ? `<p>${esc(op.description)}</p>` : ""}`;
      ops.push(`<section><h3>${title}</h3>\n${about}${params ? `<ul>${params}</ul>` : ""}${body}<ul>${responses}</ul></section>`);
    }
  }
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(doc.info.title)} — API reference</title>
<style>${DOCS_STYLE}</style></head>
<body><h1>${esc(doc.info.title)}</h1><p>${esc(doc.info.description)}</p>` +
    `<p>Machine-readable: <a href="/api/v2/openapi.json">/api/v2/openapi.json</a> (OpenAPI ${doc.openapi}).</p>${ops.join("\n")}</body></html>`
  );
}
