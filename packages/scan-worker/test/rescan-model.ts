/**
 * Ground truth for rescan-property.test.ts: each branch's files as lines, every line with an id
 * of its own, and their commits in a real repository (the edits are in rescan-edits.ts).
 *
 * A line keeps its id while it stays the same line (a function or a file moved or renamed
 * carries its lines along); a changed, re-added or duplicated line gets a new one. Vulnerable
 * lines come from a small pool, so identical copies are common, and the edits keep "which
 * copy is the old one" decidable from the content before and after (rescan-edits.ts, `ambiguity`):
 * the identity of a finding is then a fact the scan can be checked against.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { git } from "@ax/testkit";

export type Lang = "js" | "py" | "cfg";
export interface Line {
  id: number;
  text: string;
}
/** A function (js, py) or a section (cfg): its header line is unique in the repository. */
export interface Block {
  header: Line;
  body: Line[];
  footer: Line | null;
}
export interface FileModel {
  lang: Lang;
  blocks: Block[];
}
export type Tree = Map<string, FileModel>;

/** The choices of a run; the property test draws them from fast-check. */
export interface Rand {
  int(min: number, max: number): number;
}
export const pick = <T>(r: Rand, xs: readonly T[]): T => xs[r.int(0, xs.length - 1)] as T;
export const chance = (r: Rand, percent: number): boolean => r.int(1, 100) <= percent;

/**
 * One-liners the rule pack (or bandit, or the secrets detector) reports, each with a safe twin
 * of the same byte length: a same-size edit turns one into the other.
 */
export const POOL: Record<Lang, readonly { vuln: string; twin: string }[]> = {
  js: [
    { vuln: "  eval(input);", twin: "  noop(input);" },
    { vuln: "  crypto.createHash('md5').update(s);", twin: "  crypto.createHash('sm3').update(s);" },
    { vuln: "  res.redirect(req.query.next);", twin: "  res.redirect('/home/a/next');" },
    { vuln: "  document.body.innerHTML = input;", twin: "  document.body.innerText = input;" },
    { vuln: "  fs.readFile(req.query.path);", twin: "  fs.readFile('/tmp/a/b.txt');" },
  ],
  py: [
    { vuln: "    eval(data)", twin: "    list(data)" },
    { vuln: "    yaml.load(data)", twin: "    yaml.dump(data)" },
    { vuln: "    pickle.loads(data)", twin: "    pickle.dumps(data)" },
    { vuln: "    os.system(cmd)", twin: "    os.getenv(cmd)" },
    // bandit reports an assert except under a test path: a rename changes the findings.
    { vuln: "    assert data", twin: "    print(data)" },
  ],
  // A bare assignment is a secret only in a config file (.env), not in settings.txt.
  cfg: [{ vuln: "API_KEY=Zq8rT2vLx9PmW4kN7sB3", twin: "API_KEY=xxxxxxxxxxxxxxxxxxxx" }],
};
const VULN = new Set(Object.values(POOL).flatMap((p) => p.map((e) => e.vuln)));
export const TWIN = new Map(Object.values(POOL).flatMap((p) => p.map((e) => [e.twin, e.vuln] as const)));
export const TWIN_OF = new Map(Object.values(POOL).flatMap((p) => p.map((e) => [e.vuln, e.twin] as const)));
export const isVuln = (text: string): boolean => VULN.has(text);

export function langOf(file: string): Lang {
  return file.endsWith(".js") ? "js" : file.endsWith(".py") ? "py" : "cfg";
}

/** Lines in file order. */
export function linesOf(file: FileModel): Line[] {
  return file.blocks.flatMap((b) => [b.header, ...b.body, ...(b.footer ? [b.footer] : [])]);
}
export function textOf(file: FileModel): string {
  return `${linesOf(file)
    .map((l) => l.text)
    .join("\n")}\n`;
}
export function cloneTree(tree: Tree): Tree {
  return new Map(
    [...tree].map(([p, f]) => [
      p,
      { lang: f.lang, blocks: f.blocks.map((b) => ({ header: b.header, body: [...b.body], footer: b.footer })) },
    ]),
  );
}
export function idsOf(tree: Tree): Set<number> {
  return new Set([...tree.values()].flatMap((f) => linesOf(f).map((l) => l.id)));
}

/**
 * What a branch's next scan is compared with: the ids and the vulnerable texts of its previous
 * scan (a fork's first scan: those of main's previous scan). Null before any scan: nothing to
 * be ambiguous about.
 */
export interface Baseline {
  ids: Set<number>;
  /** Vulnerable texts per line id. */
  vulns: Map<number, string>;
}
export function baselineOf(tree: Tree): Baseline {
  const vulns = new Map<number, string>();
  for (const f of tree.values()) for (const l of linesOf(f)) if (isVuln(l.text)) vulns.set(l.id, l.text);
  return { ids: idsOf(tree), vulns };
}

export interface Branch {
  name: string;
  /** Its work tree (main's is the repository itself). */
  dir: string;
  tree: Tree;
  head: string;
  baseline: Baseline | null;
}

/**
 * Why a vulnerable line's identity cannot be told from content, or null. (1) An identical line
 * sits next to it with only lines new since the baseline in between: the files are the same
 * whichever of them is the old one. (2) It is new, and a line of the same text of the baseline
 * is gone: that is a line moved as much as one fixed and another added.
 */
export function ambiguity(
  file: FileModel,
  index: number,
  tree: Tree,
  baseline: Baseline | null,
  others: readonly Tree[] = [],
): string | null {
  if (!baseline) return null;
  const lines = linesOf(file);
  const line = lines[index];
  if (!line) return null;
  // Identity also comes from other branches: a line new on this branch that is, to the letter,
  // another branch's line in the same function between the same neighbours cannot be told
  // from it (this branch may have changed and restored it before any scan saw the change).
  if (!baseline.ids.has(line.id) && others.some((t) => sameSpot(t, file, index, line)))
    return "new here, identical in text, function and neighbours to another branch's line";
  for (const step of [-1, 1]) {
    for (let j = index + step; j >= 0 && j < lines.length; j += step) {
      const other = lines[j] as Line;
      if (other.text === line.text) return `an identical line ${j + 1} with only new lines in between`;
      if (baseline.ids.has(other.id)) break;
    }
  }
  if (!baseline.ids.has(line.id) && goneTexts(tree, baseline).has(line.text)) return "new, while a line of the same text disappeared";
  return null;
}

/** Whether `tree` has another line with the text, enclosing header and neighbours of `file`'s line `index`. */
function sameSpot(tree: Tree, file: FileModel, index: number, line: Line): boolean {
  const lines = linesOf(file);
  const header = file.blocks.find((b) => b.body.includes(line))?.header.text;
  const [before, after] = [lines[index - 1]?.text, lines[index + 1]?.text];
  for (const other of tree.values()) {
    for (const b of other.blocks) {
      if (b.header.text !== header) continue;
      const all = linesOf({ lang: other.lang, blocks: [b] });
      for (let i = 0; i < all.length; i++) {
        const l = all[i] as Line;
        if (l.id !== line.id && l.text === line.text && all[i - 1]?.text === before && all[i + 1]?.text === after) return true;
      }
    }
  }
  return false;
}

/** Vulnerable texts of baseline lines that are gone from the tree. */
export function goneTexts(tree: Tree, baseline: Baseline): Set<string> {
  const now = idsOf(tree);
  return new Set([...baseline.vulns].filter(([id]) => !now.has(id)).map(([, text]) => text));
}

export class Ids {
  private n = 0;
  next(): number {
    return ++this.n;
  }
}

function safeLine(ids: Ids, lang: Lang): Line {
  const id = ids.next();
  const text = lang === "js" ? `  const v${id} = ${id};` : lang === "py" ? `    v${id} = ${id}` : `name_${id}=${id}`;
  return { id, text };
}
export function newBlock(ids: Ids, lang: Lang, body: Line[]): Block {
  const id = ids.next();
  if (lang === "js")
    return { header: { id, text: `function f${id}(input, s, cmd, req, res) {` }, body, footer: { id: ids.next(), text: "}" } };
  if (lang === "py") return { header: { id, text: `def g${id}(data, cmd):` }, body, footer: null };
  return { header: { id, text: `# section ${id}` }, body, footer: null };
}

/** A body of 2–`max` lines, some vulnerable, no two identical lines adjacent. */
export function randomBody(r: Rand, ids: Ids, lang: Lang, max: number, distinct: Set<string> = new Set()): Line[] {
  const body: Line[] = [];
  const n = r.int(2, max);
  for (let i = 0; i < n; i++) {
    const vuln = pick(r, POOL[lang]).vuln;
    const previous = body[body.length - 1]?.text;
    if (chance(r, 45) && vuln !== previous && !distinct.has(vuln)) body.push({ id: ids.next(), text: vuln });
    else body.push(safeLine(ids, lang));
  }
  return body;
}

/** git's blob id of `text`: what the commit must hold for the model to be its ground truth. */
function blobId(text: string): string {
  const bytes = Buffer.from(text);
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/**
 * Writes the branch's files into its work tree and commits them at once (no sleep: the next
 * edit may land in the same second as the scan before it), then checks that the commit holds
 * exactly the model.
 */
export function commitBranch(b: Branch, message: string): string {
  for (const file of git(b.dir, "ls-files", "-z").split("\0").filter(Boolean)) if (!b.tree.has(file)) fs.rmSync(path.join(b.dir, file));
  for (const [file, f] of b.tree) {
    fs.mkdirSync(path.dirname(path.join(b.dir, file)), { recursive: true });
    fs.writeFileSync(path.join(b.dir, file), textOf(f));
  }
  git(b.dir, "add", "-A");
  git(b.dir, "commit", "-q", "--allow-empty", "-m", message);
  b.head = git(b.dir, "rev-parse", "HEAD");
  const committed = new Map(
    git(b.dir, "ls-tree", "-r", "HEAD")
      .split("\n")
      .filter(Boolean)
      .map((row) => [row.slice(row.indexOf("\t") + 1), row.split(/\s+/)[2]] as const),
  );
  const expected = new Map([...b.tree].map(([file, f]) => [file, blobId(textOf(f))] as const));
  if (JSON.stringify([...committed].sort()) !== JSON.stringify([...expected].sort()))
    throw new Error(`commit ${b.head} of ${b.name} does not hold the model`);
  return b.head;
}

/** A repository on main with a few files of random functions, committed. */
export function initialTree(r: Rand, ids: Ids): Tree {
  const tree: Tree = new Map();
  const js = (n: number) => ({
    lang: "js" as const,
    blocks: Array.from({ length: n }, () => newBlock(ids, "js", randomBody(r, ids, "js", 5))),
  });
  tree.set("src/a.js", js(r.int(2, 3)));
  tree.set("src/b.js", js(r.int(1, 3)));
  if (chance(r, 75)) {
    const blocks = Array.from({ length: r.int(1, 2) }, () => newBlock(ids, "py", randomBody(r, ids, "py", 4)));
    // An assert, reported outside test directories only, for renames to move.
    const body = (blocks[0] as Block).body;
    if (body[body.length - 1]?.text !== "    assert data") body.push({ id: ids.next(), text: "    assert data" });
    tree.set("app.py", { lang: "py", blocks });
  }
  if (chance(r, 75))
    tree.set("settings.txt", {
      lang: "cfg",
      blocks: [newBlock(ids, "cfg", [safeLine(ids, "cfg"), { id: ids.next(), text: POOL.cfg[0]?.vuln as string }])],
    });
  return tree;
}
