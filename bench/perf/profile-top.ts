/**
 * Summarises a V8 .cpuprofile (node --cpu-prof): self time per function and per package/file,
 * the view docs/performance.md quotes.
 *
 *   node --import tsx bench/perf/profile-top.ts <file.cpuprofile> [--top 25]
 */
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
const file = process.argv[2];
if (!file) throw new Error("usage: profile-top.ts <file.cpuprofile>");
const top = Number(process.argv[process.argv.indexOf("--top") + 1]) || 25;
const prof = JSON.parse(readFileSync(file, "utf8")) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const selfUs = new Map<number, number>();
prof.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const byFn = new Map<string, number>();
const byArea = new Map<string, number>();
const area = (url: string): string => {
  if (!url) return "(native/V8)";
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1] ?? url;
  if (url.startsWith("node:")) return url;
  const w = /\/(packages|apps)\/([^/]+)\//.exec(url);
  return w ? `${w[1]}/${w[2]}` : url.replace(/^.*\//, "");
};
for (const n of prof.nodes) {
  const us = selfUs.get(n.id) ?? 0;
  if (!us) continue;
  const fn =
    `${n.callFrame.functionName || "(anonymous)"} ` +
    `${n.callFrame.url.replace(/^.*\/(node_modules|packages|apps)\//, "$1/")}:` +
    `${n.callFrame.lineNumber + 1}`;
  byFn.set(fn, (byFn.get(fn) ?? 0) + us);
  byArea.set(area(n.callFrame.url), (byArea.get(area(n.callFrame.url)) ?? 0) + us);
}
const pct = (us: number) => `${((us / total) * 100).toFixed(1)}%`;
process.stdout.write(`total ${(total / 1e6).toFixed(2)} s sampled\n\nby package/file:\n`);
for (const [k, v] of [...byArea].sort((a, b) => b[1] - a[1]).slice(0, 15)) process.stdout.write(`  ${pct(v).padStart(6)}  ${k}\n`);
process.stdout.write(`\nby function (self):\n`);
for (const [k, v] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`  ${pct(v).padStart(6)}  ${k}\n`);
