/** The lowering and the table of each language the taint analysis reads. */
import type { ModuleIR } from "./ir";
import { lowerJava } from "./java";
import { JAVA_SPEC } from "./java-spec";
import { lowerJavaScript } from "./javascript";
import { JAVASCRIPT_SPEC } from "./javascript-spec";
import { lowerPython } from "./python";
import { PYTHON_SPEC } from "./python-spec";
import type { LanguageSpec } from "./spec";

export type Lowerer = (file: string, source: string) => ModuleIR;

/** The languages the analysis reads (TypeScript with the JavaScript table). */
export const DATAFLOW_LANGUAGES = ["java", "python", "javascript", "typescript"] as const;

export const LOWERERS: ReadonlyMap<string, Lowerer> = new Map<string, Lowerer>([
  ["java", lowerJava],
  ["python", lowerPython],
  ["javascript", (file, source) => lowerJavaScript(file, source, "javascript")],
  ["typescript", (file, source) => lowerJavaScript(file, source, "typescript")],
]);

export const SPECS: ReadonlyMap<string, LanguageSpec> = new Map([
  ["java", JAVA_SPEC],
  ["python", PYTHON_SPEC],
  ["javascript", JAVASCRIPT_SPEC],
]);
