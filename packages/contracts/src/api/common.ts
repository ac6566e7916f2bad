import { z } from "zod";

/** An id in a path, query or body: a non-empty string (what is not a UUID is simply not found). */
export const Id = z.string({ error: "must be a string" }).min(1).max(200);

/** A cursor-paginated list: `{ [key]: items, next_cursor }`. */
export const listOf = <T extends z.ZodType>(key: string, item: T) => z.object({ [key]: z.array(item), next_cursor: z.string().nullable() });

/**
 * A schema that accepts variants of its values (case, `_`/`-`/space) and documents the canonical
 * ones as its enum: the OpenAPI document lists what the schema lets through once canonical.
 */
export const withEnum = <S extends z.ZodType>(schema: S, values: readonly string[]): S => schema.meta({ enum: [...values] }) as S;
