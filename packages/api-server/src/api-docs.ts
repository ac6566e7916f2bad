import { ERROR_KINDS } from "@ax/contracts";
import { loadConfig } from "@ax/config";
import { apiRoutes, API_VERSION } from "./app";
import type { AppDeps } from "./http/context";
import { buildOpenApi } from "./http/openapi";

/**
 * docs/api.md, written from the same route definitions that serve requests (npm run
 * docs:api). Building the route table needs no connections: handlers are never called.
 */
export function renderApiMarkdown(): string {
  // Default limits (an empty environment) for the documented bounds of bodies.
  const routes = apiRoutes({ config: loadConfig({}) } as AppDeps);
  const doc = buildOpenApi(routes, { version: API_VERSION });
  const lines: string[] = [
    "# API reference",
    "",
    "Generated from the route definitions by `npm run docs:api`; do not edit by hand. The live",
    "service serves the same as OpenAPI 3.1 at `GET /api/v2/openapi.json` and as a page at `GET /api/v2/docs`.",
    "",
    "Authentication: every endpoint not marked *public* needs a personal access token in the `X-AX-KEY` header.",
    'Errors are `{"code": <status>, "error": "<kind>", "message": "…"}`, with `details: [{path, message}]` for invalid input;',
    "`error` is one of the stable kinds listed under [Errors](#errors) (the chat endpoints answer errors in Markdown).",
    "The token is checked before any input: without a valid one the answer is 401, whatever the body. Unknown query",
    "parameters are refused (400) like unknown body fields. A method an existing path does not take is 405 with `Allow`.",
    "Every response carries `X-Request-Id`.",
    "",
    ...errorSection(),
  ];
  const byTag = new Map<string, string[]>();
  type ParamSchema = { type?: string; enum?: unknown[]; pattern?: string; items?: ParamSchema };
  type Op = {
    parameters?: { name: string; in: string; required: boolean; schema: ParamSchema }[];
    requestBody?: { content: Record<string, { schema: unknown }> };
    responses: Record<string, { description: string }>;
  };
  // What a parameter takes, when the schema says: its values, or its format.
  const takes = (s: ParamSchema): string => {
    const one = s.type === "array" ? (s.items ?? {}) : s;
    const list = s.type === "array" ? ", comma-separated" : "";
    if (one.enum) return `, one of ${one.enum.map((v) => `\`${String(v)}\``).join(", ")}${list}`;
    if (one.pattern) return `, matching \`${one.pattern}\`${list}`;
    return list;
  };
  for (const r of routes) {
    const tag = r.tags[0] ?? "Other";
    const path = `/api/v2${r.path.replace(/:([A-Za-z_]+)/g, "{$1}")}`;
    const op = (doc.paths[path] as Record<string, Op>)[r.method];
    const params = (op?.parameters ?? []).map((p) => `\`${p.name}\` (${p.in}${p.required ? ", required" : ""}${takes(p.schema ?? {})})`);
    const body = op?.requestBody?.content["application/json"]?.schema;
    const out = [
      `### ${r.method.toUpperCase()} ${path}${r.auth === "public" ? " — public" : ""}`,
      "",
      r.summary + ".",
      ...(r.description ? ["", r.description] : []),
      ...(params.length ? ["", `Parameters: ${params.join(", ")}.`] : []),
      ...(body ? ["", "Body (JSON):", "", "```json", JSON.stringify(body, null, 2), "```"] : []),
      "",
      "Responses:",
      "",
      ...Object.entries(op?.responses ?? {}).map(([status, d]) => `- **${status}** ${d.description}`),
      "",
    ];
    byTag.set(tag, [...(byTag.get(tag) ?? []), ...out]);
  }
  for (const [tag, section] of byTag) lines.push(`## ${tag}`, "", ...section);
  lines.push(
    "## Documents",
    "",
    "### GET /api/v2/openapi.json — public",
    "",
    "The OpenAPI 3.1 document.",
    "",
    "### GET /api/v2/docs — public",
    "",
    "A human-readable reference page.",
    "",
  );
  return lines.join("\n");
}

/** The stable error kinds (contracts' ERROR_KINDS): what clients branch on. */
function errorSection(): string[] {
  return [
    "## Errors",
    "",
    "| `error` | Status | Meaning |",
    "|---|---|---|",
    ...Object.entries(ERROR_KINDS).map(([kind, k]) => `| \`${kind}\` | ${k.status} | ${k.description} |`),
    "",
  ];
}
