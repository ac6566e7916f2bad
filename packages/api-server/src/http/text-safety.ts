/**
 * Text that PostgreSQL cannot store: NUL characters (not allowed in text or jsonb) and lone
 * UTF-16 surrogates (not valid Unicode, refused by jsonb). Such input is refused at the
 * door with a 400 naming where it was, rather than failing deep inside a query as a 500.
 */
import type { Request } from "express";
import { badRequest } from "./errors";

// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const UNSAFE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const MAX_DEPTH = 64;

export function isUnsafeText(s: string): boolean {
  return UNSAFE.test(s);
}

/** The path (e.g. `body.items.3.name`) of the first unsafe string or key in a value, or null. */
export function findUnsafeText(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === "string") return isUnsafeText(value) ? path : null;
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return null;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const here = `${path}.${isUnsafeText(k) ? "?" : k}`;
    if (isUnsafeText(k)) return here;
    const found = findUnsafeText(v, here, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * Refuses a request whose JSON body or query string carries text PostgreSQL cannot store.
 * Called by every route after authentication (a 401 comes before any input error).
 */
export function refuseUnsafeText(req: Request): void {
  const where = findUnsafeText(req.query, "query") ?? findUnsafeText(req.body, "body");
  if (where) throw badRequest(`Invalid input: ${where} contains a NUL character or an unpaired surrogate.`);
}
