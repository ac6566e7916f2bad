/**
 * Archive entries as a source (zip slip): the callbacks archive libraries call with each entry
 * of an archive being read — `.on("entry", (entry) => …)` (unzipper, yauzl, tar-stream) and
 * tar's `onentry` option (`tar.x({ onentry: (entry) => … })`). The entry's name (`entry.path`,
 * `entry.fileName`, `header.name`) comes from the archive, so joined into an extraction path it
 * can climb out with `../`; the callback's first parameter is marked as a source.
 */
import type { Expr, FunctionIR } from "./ir";
import { forEachExpr } from "./javascript-frameworks";

const LABEL = "archive entry (its name comes from the archive)";

export function markArchiveEntries(functions: FunctionIR[]): void {
  const callbacks = new Set<string>();
  const visit = (e: Expr): void => {
    if (e.k !== "call") return;
    const [first, second] = e.args;
    if (e.callee === "on" && first?.k === "const" && first.value === "entry" && second?.k === "lambda") callbacks.add(second.name);
    for (const arg of e.args)
      if (arg.k === "object")
        for (const en of arg.entries) if (en.key === "onentry" && en.value.k === "lambda") callbacks.add(en.value.name);
  };
  for (const fn of functions) forEachExpr(fn.body, visit);
  for (const fn of functions) {
    if (!callbacks.has(fn.name) || fn.params.length === 0 || fn.sourceParams?.some((s) => s.index === 0)) continue;
    fn.sourceParams = [...(fn.sourceParams ?? []), { index: 0, label: LABEL }];
  }
}
