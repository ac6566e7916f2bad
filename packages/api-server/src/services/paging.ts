import { isId } from "@ax/db";
import { badRequest } from "../http/errors";
import { decodeCursor, encodeCursor, isCursorText } from "./presenters";

/**
 * Cursor pagination shared by the list endpoints: a page is `limit` rows read as `limit + 1`
 * (the extra row says whether there is a next page), and its cursor is the last row's sort key.
 */

/** A cursor that does not decode is 400, never an empty page. */
export function readCursor<T>(cursor: string | undefined, check: (v: unknown) => v is T): T | undefined {
  const after = decodeCursor(cursor, check);
  if (cursor && !after) throw badRequest("Invalid query: cursor is not valid.");
  return after;
}

/** A cursor's place in file order: bounded safe text, a non-negative 32-bit line, a valid id. */
export function isPlaceKey(file: unknown, line: unknown, id: unknown): boolean {
  return (
    isCursorText(file, 4096) &&
    Number.isInteger(line) &&
    (line as number) >= 0 &&
    (line as number) <= 2 ** 31 - 1 &&
    typeof id === "string" &&
    isId(id)
  );
}

/** The first `limit` rows and the cursor of the next page, keyed by the last row. */
export function pageOf<T>(rows: T[], limit: number, key: (last: T) => unknown): { items: T[]; next_cursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_cursor: rows.length > limit && last ? encodeCursor(key(last)) : null };
}

/** Newest- or oldest-first lists: creation time and id. */
type TimeKey = { t: string; id: string };
const isTimeKey = (v: unknown): v is TimeKey => {
  const c = v as { t?: unknown; id?: unknown };
  return (
    typeof c === "object" &&
    c !== null &&
    typeof c.t === "string" &&
    /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(c.t) &&
    Number.isFinite(Date.parse(c.t)) &&
    typeof c.id === "string" &&
    isId(c.id)
  );
};

export function timeKeyOf(cursor: string | undefined): { created_at: Date; id: string } | undefined {
  const c = readCursor(cursor, isTimeKey);
  return c ? { created_at: new Date(c.t), id: c.id } : undefined;
}

export const timePage = <T extends { id: string; created_at: Date | string }>(rows: T[], limit: number) =>
  pageOf(rows, limit, (last): TimeKey => ({ t: new Date(last.created_at).toISOString(), id: last.id }));

/** Lists in name order: the last name. */
const isNameKey = (v: unknown): v is { k: string } => typeof v === "object" && v !== null && isCursorText((v as { k?: unknown }).k, 300);

export const nameKeyOf = (cursor: string | undefined): string | undefined => readCursor(cursor, isNameKey)?.k;

export const namePage = <T>(rows: T[], limit: number, key: (row: T) => string) => pageOf(rows, limit, (last) => ({ k: key(last) }));

/** Lists of a fixed size read by position (the failed jobs of a queue). */
const isOffset = (v: unknown): v is { o: number } =>
  typeof v === "object" && v !== null && Number.isInteger((v as { o?: unknown }).o) && (v as { o: number }).o >= 0;

export const offsetOf = (cursor: string | undefined): number => readCursor(cursor, isOffset)?.o ?? 0;
