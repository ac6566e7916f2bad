/**
 * Twins for the Python and JavaScript taint tests (and Java through the same path): lower each
 * file with the language's lowering, analyse with the shipped tables, and compare the findings
 * with the `# SINK` / `// SINK` marker of the vulnerable twin.
 */
import { analyzeModules, type TaintTrace } from "../src/engine";
import { LOWERERS, SPECS } from "../src/languages";
import { dedent } from "./java-twins";

export type Lang = "java" | "python" | "javascript";

const EXT: Record<Lang, string> = { java: "java", python: "py", javascript: "js" };

export function scanLang(lang: Lang, source: string, file = `src/app.${EXT[lang]}`): TaintTrace[] {
  const lower = LOWERERS.get(lang);
  if (!lower) throw new Error(`no lowering for ${lang}`);
  const text = dedent(source);
  const lines = text.split("\n");
  return analyzeModules([lower(file, text)], { specs: SPECS, lines: () => lines });
}

/** CWE and line of each finding, sorted. */
export function found(lang: Lang, source: string): { cwe: string | null; line: number }[] {
  return scanLang(lang, source)
    .map((f) => ({ cwe: f.cwe_id, line: f.start_line }))
    .sort((a, b) => a.line - b.line);
}

/** 1-based line of the SINK marker in the dedented source. */
export function sinkLine(source: string): number {
  const lines = dedent(source).split("\n");
  const i = lines.findIndex((l) => /(#|\/\/) SINK/.test(l));
  if (i < 0) throw new Error("no SINK marker");
  return i + 1;
}

export interface LangTwin {
  name: string;
  lang: Lang;
  cwe: string;
  vuln: string;
  safe: string;
}

/** The vulnerable twin gives exactly one finding of `cwe` at its SINK line; the safe twin none. */
export function langTwins(title: string, cases: readonly LangTwin[]): void {
  describe.each(cases)(`${title}: $lang $name`, ({ lang, cwe, vuln, safe }) => {
    it("reports the vulnerable twin at its sink", () => {
      expect(found(lang, vuln)).toEqual([{ cwe, line: sinkLine(vuln) }]);
    });
    it("reports nothing for the safe twin", () => {
      expect(found(lang, safe)).toEqual([]);
    });
  });
}
