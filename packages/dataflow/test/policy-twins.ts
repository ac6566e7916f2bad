/**
 * Twins in Java, Python and JavaScript for the sink-argument, source-policy and typestate
 * tests: each source is lowered with its language's lowering and analysed with the shipped
 * tables; the vulnerable twin must give exactly the expected findings, one per `SINK` marker
 * line in order, and the safe twin none.
 */
import { analyzeModules, type TaintTrace } from "../src/engine";
import { LOWERERS, SPECS } from "../src/languages";
import { dedent, servlet } from "./java-twins";

export type Lang = "java" | "python" | "javascript";

const FILE: Record<Lang, string> = {
  java: "src/main/java/com/example/web/UserServlet.java",
  python: "app/views.py",
  javascript: "src/routes.js",
};

/** Java sources are doGet bodies of the test servlet (java-twins.ts `servlet`); others whole files. */
function program(lang: Lang, source: string): string {
  return lang === "java" ? servlet(source) : dedent(source);
}

export function analyse(lang: Lang, source: string): TaintTrace[] {
  const lower = LOWERERS.get(lang);
  if (!lower) throw new Error(`no lowering for ${lang}`);
  const text = program(lang, source);
  const lines = text.split("\n");
  return analyzeModules([lower(FILE[lang], text)], { specs: SPECS, lines: () => lines });
}

export interface Hit {
  rule: string;
  cwe: string | null;
  line: number;
}

export function hits(lang: Lang, source: string): Hit[] {
  return analyse(lang, source)
    .map((f) => ({ rule: f.rule_id, cwe: f.cwe_id, line: f.start_line }))
    .sort((a, b) => a.line - b.line || a.rule.localeCompare(b.rule));
}

/** Lines (1-based, in the analysed program) holding a `SINK` marker comment. */
export function sinkLines(lang: Lang, source: string): number[] {
  return program(lang, source)
    .split("\n")
    .flatMap((l, i) => (/(#|\/\/) SINK/.test(l) ? [i + 1] : []));
}

export interface PolicyTwin {
  name: string;
  lang: Lang;
  vuln: string;
  safe: string;
  /** Rule and CWE of the finding at each SINK line of the vulnerable twin, in order. */
  expect: readonly { rule: string; cwe: string }[];
}

export function policyTwins(title: string, cases: readonly PolicyTwin[]): void {
  describe.each(cases)(`${title}: $lang $name`, ({ lang, vuln, safe, expect: want }) => {
    it("reports the vulnerable twin at its sinks", () => {
      const lines = sinkLines(lang, vuln);
      expect(lines).toHaveLength(want.length);
      expect(hits(lang, vuln)).toEqual(want.map((w, i) => ({ ...w, line: lines[i] })));
    });
    it("reports nothing for the safe twin", () => {
      expect(hits(lang, safe)).toEqual([]);
    });
  });
}
