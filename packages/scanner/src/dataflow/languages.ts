/** The lowering and the table of each language the taint analysis reads. */
import type { ModuleIR } from "./ir";
import { lowerJava } from "./java";
import { JAVA_SPEC } from "./java-spec";
import type { LanguageSpec } from "./spec";

export type Lowerer = (file: string, source: string) => ModuleIR;

export const LOWERERS: ReadonlyMap<string, Lowerer> = new Map<string, Lowerer>([["java", lowerJava]]);

export const SPECS: ReadonlyMap<string, LanguageSpec> = new Map([["java", JAVA_SPEC]]);
