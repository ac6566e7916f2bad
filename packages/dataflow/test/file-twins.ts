/**
 * Whole-file twins in Java, Python and JavaScript (engine-framework-sinks.test.ts,
 * engine-sink-tables.test.ts): each source is one file of its language, lowered and analysed
 * with the shipped tables. The vulnerable twin must give exactly the expected findings, one per
 * `SINK` marker line in order (rule, CWE and, where given, confidence), and the safe twin none.
 */
import { analyzeModules, type TaintTrace } from "../src/engine";
import { LOWERERS, SPECS } from "../src/languages";
import { dedent } from "./java-twins";

export type Lang = "java" | "python" | "javascript";

const FILE: Record<Lang, string> = {
  java: "src/main/java/com/example/web/Handlers.java",
  python: "app/views.py",
  javascript: "src/server.js",
};

export function analyseFile(lang: Lang, source: string): TaintTrace[] {
  const lower = LOWERERS.get(lang);
  if (!lower) throw new Error(`no lowering for ${lang}`);
  const text = dedent(source);
  const lines = text.split("\n");
  return analyzeModules([lower(FILE[lang], text)], { specs: SPECS, lines: () => lines });
}

export interface FileTwin {
  name: string;
  lang: Lang;
  vuln: string;
  safe: string;
  /** Rule and CWE (and confidence, when it matters) of the finding at each SINK line, in order. */
  expect: readonly { rule: string; cwe: string; confidence?: string }[];
}

export function fileTwins(title: string, cases: readonly FileTwin[]): void {
  describe.each(cases)(`${title}: $lang $name`, ({ lang, vuln, safe, expect: want }) => {
    it("reports the vulnerable twin at its sinks", () => {
      const lines = dedent(vuln)
        .split("\n")
        .flatMap((l, i) => (/(#|\/\/) SINK/.test(l) ? [i + 1] : []));
      expect(lines).toHaveLength(want.length);
      const got = analyseFile(lang, vuln)
        .map((f) => ({ rule: f.rule_id, cwe: f.cwe_id, line: f.start_line, confidence: f.confidence }))
        .sort((a, b) => a.line - b.line || a.rule.localeCompare(b.rule));
      expect(got.map(({ confidence, ...rest }, i) => (want[i]?.confidence ? { ...rest, confidence } : rest))).toEqual(
        want.map((w, i) => ({ ...w, line: lines[i] })),
      );
    });
    it("reports nothing for the safe twin", () => {
      expect(analyseFile(lang, safe).map((f) => `${f.rule_id}@${f.start_line}`)).toEqual([]);
    });
  });
}
