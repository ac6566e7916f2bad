import { randomUUID } from "node:crypto";

/** Identifiers are random UUIDs: unguessable, so a public scan id can double as its capability. */
export const newId = (): string => randomUUID();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Path ids that cannot exist are answered like unknown ones, without a query. */
export const isId = (v: string): boolean => UUID.test(v);
