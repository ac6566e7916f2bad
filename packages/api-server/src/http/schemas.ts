import { z } from "zod";
import { ErrorBody, Id } from "@ax/contracts";

/**
 * The API's query parameters and the error responses every route documents. Request bodies and
 * responses are wire types: they live in @ax/contracts.
 */

export const Cursor = z.string().max(2000).optional();
export const Limit = (max: number, def: number) =>
  z.coerce
    .number({ error: "limit must be a number" })
    .int({ error: "limit must be a whole number" })
    .min(1, { error: `limit must be between 1 and ${max}` })
    .max(max, { error: `limit must be between 1 and ${max}` })
    .default(def);

/**
 * How a list-valued query parameter is written in the OpenAPI document: an array of `items`,
 * comma-separated (`style: form, explode: false`; repeating the parameter works too). The
 * generator (openapi.ts) reads this registry.
 */
export const queryLists = z.registry<{ items: Record<string, unknown> }>();

const splitList = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) =>
    v === undefined
      ? undefined
      : (Array.isArray(v) ? v : [v])
          .flatMap((s) => s.split(","))
          .map((s) => s.trim())
          .filter(Boolean),
  )
  .refine((v) => v === undefined || v.length <= 50, { message: "at most 50 values" });

/** Comma-separated filter values (`?rule=a,b`), also repeatable; free text. */
export const CsvList = splitList.register(queryLists, { items: { type: "string" } });

/**
 * A list filter over a closed set (`?severity=high,critical`): each value is put in canonical
 * form by `canonical` and must be one of `values`, else 400 listing them. A typo must not
 * filter everything out: a CI gate would read "no findings" and pass.
 */
export function EnumList<T extends readonly [string, ...string[]]>(name: string, values: T, canonical: (s: string) => string) {
  const allowed = new Set<string>(values);
  return splitList
    .transform((v) => v?.map(canonical))
    .refine((v) => v === undefined || v.every((x) => allowed.has(x)), {
      message: `${name} takes ${values.join(", ")} (comma-separated, case-insensitive).`,
    })
    .register(queryLists, { items: { type: "string", enum: [...values] } });
}

/** A list filter whose values have a format (`?cwe=CWE-89,CWE-79`), checked after `canonical`. */
export function PatternList(name: string, pattern: RegExp, example: string, canonical: (s: string) => string) {
  return splitList
    .transform((v) => v?.map(canonical))
    .refine((v) => v === undefined || v.every((x) => pattern.test(x)), {
      message: `${name} takes values like ${example} (comma-separated).`,
    })
    .register(queryLists, { items: { type: "string", pattern: pattern.source } });
}

/** "true" / "false" in a query string. */
export const QueryBool = z
  .enum(["true", "false"], { error: "must be true or false" })
  .transform((v) => v === "true")
  .optional();

export const OrgQuery = z.object({ organization_id: Id.optional() });

/** Error responses every authenticated JSON route can give. */
export const commonErrors = {
  400: { description: "Invalid input; the message names the field.", schema: ErrorBody },
  401: { description: "Missing, malformed, unknown, expired or revoked token.", schema: ErrorBody },
  404: { description: "Not found, or not visible to the caller's organizations.", schema: ErrorBody },
  429: { description: "Rate limit of the token or the client IP reached; see Retry-After and the RateLimit-* headers.", schema: ErrorBody },
};
