/**
 * Multi-file twins for Python and JavaScript (module resolution, closures): each file is
 * lowered by its extension's lowering and analysed with the shipped tables; a vulnerable set
 * must give exactly one finding at its `SINK` marker, a safe set none.
 */
import { analyzeModules, type TaintTrace } from "../src/engine";
import { LOWERERS, SPECS } from "../src/languages";
import { dedent } from "./java-twins";

export type Files = Readonly<Record<string, string>>;

const BY_EXT: Record<string, string> = { py: "python", js: "javascript", ts: "typescript", mjs: "javascript" };

export function scanFiles(files: Files): TaintTrace[] {
  const texts = new Map(Object.entries(files).map(([f, s]) => [f, dedent(s)]));
  const modules = [...texts].map(([f, s]) => {
    const lower = LOWERERS.get(BY_EXT[f.split(".").pop() ?? ""] ?? "");
    if (!lower) throw new Error(`no lowering for ${f}`);
    return lower(f, s);
  });
  return analyzeModules(modules, { specs: SPECS, lines: (f) => (texts.get(f) ?? "").split("\n") });
}

/** CWE, file and line of each finding, sorted. */
export function foundIn(files: Files): { cwe: string | null; file: string; line: number }[] {
  return scanFiles(files)
    .map((f) => ({ cwe: f.cwe_id, file: f.file, line: f.start_line }))
    .sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

/** The file and line of the one `SINK` marker (`# SINK` or `// SINK`). */
export function sinkOf(files: Files): { file: string; line: number } {
  const hits = Object.entries(files).flatMap(([f, s]) =>
    dedent(s)
      .split("\n")
      .flatMap((l, i) => (/(#|\/\/) SINK/.test(l) ? [{ file: f, line: i + 1 }] : [])),
  );
  if (hits.length !== 1 || !hits[0]) throw new Error(`expected one SINK marker, got ${hits.length}`);
  return hits[0];
}

export interface ModuleTwin {
  name: string;
  cwe: string;
  vuln: Files;
  safe: Files;
}

/** The vulnerable files give exactly one finding of `cwe` at the SINK marker; the safe ones none. */
export function moduleTwins(title: string, cases: readonly ModuleTwin[]): void {
  describe.each(cases)(`${title}: $name`, ({ cwe, vuln, safe }) => {
    it("reports the vulnerable twin at its sink", () => {
      expect(foundIn(vuln)).toEqual([{ cwe, ...sinkOf(vuln) }]);
    });
    it("reports nothing for the safe twin", () => {
      expect(foundIn(safe)).toEqual([]);
    });
  });
}
