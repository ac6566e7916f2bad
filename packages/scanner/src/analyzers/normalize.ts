/**
 * Small, defensive helpers every adapter uses to turn a tool's record into a
 * NormalizedFinding. Tool output is untrusted-ish (it quotes repository code and paths), so
 * every field is type-checked, text is capped, and a path that leaves the checkout is refused.
 */
import { isAbsolute, posix, relative, sep } from "node:path";
import { canonicalLabel, LEVELS, SEVERITIES, type Level, type Severity } from "@ax/contracts";

export const MAX_SNIPPET = 2048;
/** Same bound as the reviewer-editable text fields (contracts). */
export const MAX_TEXT = 10_000;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function cap(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}

/** A non-empty string, capped; anything else is null. */
export function text(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 ? cap(value, MAX_TEXT) : null;
}

export function int(value: unknown): number | null {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string" && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  return null;
}

/**
 * A repository-relative POSIX path, or null for anything that escapes the checkout. `dir`
 * (the checkout) lets absolute paths inside it through, as some tools print them.
 */
export function repoPath(value: unknown, dir?: string): string | null {
  const raw = text(value);
  if (!raw || raw.includes("\0")) return null;
  // A backslash is an ordinary character in a POSIX file name (`src\app.py` is one file).
  let p = raw;
  if (isAbsolute(p) || p.startsWith("/")) {
    if (!dir) return null;
    p = relative(dir, raw).split(sep).join("/");
  }
  p = posix.normalize(p).replace(/^(\.\/)+/, "");
  if (p === "" || p === "." || p.startsWith("/") || p === ".." || p.startsWith("../")) return null;
  return p;
}

/** "CWE-89", "cwe-89", "89", 89 → "CWE-89". */
export function cweId(value: unknown): string | null {
  const s = typeof value === "number" ? String(value) : text(value);
  const m = s ? /^(?:CWE-?)?(\d{1,5})\b/i.exec(s.trim()) : null;
  return m && m[1] !== "0" ? `CWE-${Number(m[1])}` : null;
}

export function label<T extends string>(value: unknown, allowed: readonly T[]): T | null {
  const s = text(value);
  if (!s) return null;
  const v = canonicalLabel(s);
  return (allowed as readonly string[]).includes(v) ? (v as T) : null;
}

export const severity = (value: unknown): Severity | null => label(value, SEVERITIES);
export const level = (value: unknown): Level | null => label(value, LEVELS);

const LEVEL_ORDER: readonly Level[] = ["LOW", "MEDIUM", "HIGH"];

/** One step less sure (HIGH → MEDIUM → LOW), e.g. for matches in test fixtures. */
export function lowerLevel(value: Level): Level {
  return LEVEL_ORDER[Math.max(0, LEVEL_ORDER.indexOf(value) - 1)] as Level;
}

/** Test, fixture, example and mock code: findings there are real but matter less. */
const TEST_PATH = new RegExp(
  String.raw`(^|\/)(tests?|__tests__|spec|specs|fixtures?|__fixtures__|testdata|test[-_]data|mocks?|__mocks__|examples?|samples?|demo)(\/|$)` +
    String.raw`|(^|\/)(test_[^/]*|[^/]*[._-](test|tests|spec)\.[^/]+|conftest\.py)$`,
  "i",
);

export function isTestPath(path: string): boolean {
  return TEST_PATH.test(path);
}
