/**
 * Ground truth for rescan-property.test.ts: each branch's files as lines, every line with an id
 * of its own, the edits the test makes to them, and their commits in a real repository.
 *
 * A line keeps its id while it stays the same line (a function or a file moved or renamed
 * carries its lines along); a changed, re-added or duplicated line gets a new one. Vulnerable
 * lines come from a small pool, so identical copies are common, and the edits keep "which
 * copy is the old one" decidable from the content before and after (`insertable`, `ambiguity`):
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
const TWIN = new Map(Object.values(POOL).flatMap((p) => p.map((e) => [e.twin, e.vuln] as const)));
const TWIN_OF = new Map(Object.values(POOL).flatMap((p) => p.map((e) => [e.vuln, e.twin] as const)));
export const isVuln = (text: string): boolean => VULN.has(text);

export function langOf(file: string): Lang {
  return file.endsWith(".js") ? "js" : file.endsWith(".py") ? "py" : "cfg";
}

/** Lines in file order. */
export function linesOf(file: FileModel): Line[] {
  return file.blocks.flatMap((b) => [b.header, ...b.body, ...(b.footer ? [b.footer] : [])]);
}
export function textOf(file: FileModel): string {
  return `${linesOf(file).map((l) => l.text).join("\n")}\n`;
}
export function cloneTree(tree: Tree): Tree {
  return new Map([...tree].map(([p, f]) => [p, { lang: f.lang, blocks: f.blocks.map((b) => ({ header: b.header, body: [...b.body], footer: b.footer })) }]));
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
export function ambiguity(file: FileModel, index: number, tree: Tree, baseline: Baseline | null): string | null {
  if (!baseline) return null;
  const lines = linesOf(file);
  const line = lines[index];
  if (!line) return null;
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

function goneTexts(tree: Tree, baseline: Baseline): Set<string> {
  const now = idsOf(tree);
  return new Set([...baseline.vulns].filter(([id]) => !now.has(id)).map(([, text]) => text));
}

const settled = (b: Branch, l: Line | undefined) => l === undefined || b.baseline === null || b.baseline.ids.has(l.id);

/** The lines before and after body position `j` of block `bi` once `skip` body lines there are left out. */
function around(file: FileModel, bi: number, j: number, skip: number): [Line | undefined, Line | undefined] {
  const block = file.blocks[bi] as Block;
  const prev = j > 0 ? block.body[j - 1] : block.header;
  const next = block.body[j + skip] ?? block.footer ?? file.blocks[bi + 1]?.header;
  return [prev, next];
}

/**
 * Whether a new vulnerable line `text` may go between these neighbours: each is the file's
 * start or end, or a line of the baseline with other text; and no line of that text is gone
 * since the baseline (a fix and an identical new line would read as a move).
 */
function insertable(b: Branch, text: string, [prev, next]: [Line | undefined, Line | undefined]): boolean {
  const ok = (l: Line | undefined) => settled(b, l) && l?.text !== text;
  return ok(prev) && ok(next) && !(b.baseline && goneTexts(b.tree, b.baseline).has(text));
}

/** A settled vulnerable line may go only if no new line of its text was added since the baseline. */
function removable(b: Branch, line: Line): boolean {
  if (!isVuln(line.text) || !b.baseline?.ids.has(line.id)) return true;
  return ![...b.tree.values()].some((f) => linesOf(f).some((l) => l.text === line.text && !b.baseline?.ids.has(l.id)));
}

export class Ids {
  private n = 0;
  next(): number {
    return ++this.n;
  }
}

interface Slot {
  file: string;
  bi: number;
  j: number;
}
function bodySlots(tree: Tree, only?: string): Slot[] {
  const slots: Slot[] = [];
  for (const [file, f] of tree) {
    if (only !== undefined && file !== only) continue;
    f.blocks.forEach((b, bi) => b.body.forEach((_l, j) => slots.push({ file, bi, j })));
  }
  return slots;
}
const lineAt = (tree: Tree, s: Slot) => (tree.get(s.file) as FileModel).blocks[s.bi]?.body[s.j] as Line;
const lineNo = (tree: Tree, s: Slot, line: Line) => linesOf(tree.get(s.file) as FileModel).indexOf(line) + 1;

function safeLine(ids: Ids, lang: Lang): Line {
  const id = ids.next();
  const text = lang === "js" ? `  const v${id} = ${id};` : lang === "py" ? `    v${id} = ${id}` : `name_${id}=${id}`;
  return { id, text };
}
export function newBlock(ids: Ids, lang: Lang, body: Line[]): Block {
  const id = ids.next();
  if (lang === "js") return { header: { id, text: `function f${id}(input, s, cmd, req, res) {` }, body, footer: { id: ids.next(), text: "}" } };
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

/** An edit of the branch's model (and, for renames, of its index); returns what it did, or null when it had nothing to do. */
export type Edit = (r: Rand, b: Branch, ids: Ids, only?: string) => string | null;

const modifySafe: Edit = (r, b, ids, only) => {
  const slots = bodySlots(b.tree, only).filter((s) => /^\s*(const v|v|name_)\d+ ?= ?\d+;?$/.test(lineAt(b.tree, s).text));
  if (slots.length === 0) return null;
  const s = pick(r, slots);
  const old = lineAt(b.tree, s);
  const value = /(\d+);?$/.exec(old.text)?.[1] ?? "0";
  // Same size most often: the same length, other digits.
  const sameSize = chance(r, 60);
  let next = sameSize ? String((Number(value[0]) % 9) + 1) + value.slice(1) : `${value}${r.int(0, 9)}`;
  if (next === value) next = `${value}7`;
  const line = { id: ids.next(), text: old.text.replace(/\d+(;?)$/, `${next}$1`) };
  (b.tree.get(s.file) as FileModel).blocks[s.bi]?.body.splice(s.j, 1, line);
  return `modify ${s.file}:${lineNo(b.tree, s, line)}${sameSize ? " (same size)" : ""}`;
};

const vulnToTwin: Edit = (r, b, ids, only) => {
  const slots = bodySlots(b.tree, only).filter((s) => isVuln(lineAt(b.tree, s).text) && removable(b, lineAt(b.tree, s)));
  if (slots.length === 0) return null;
  const s = pick(r, slots);
  const old = lineAt(b.tree, s);
  const line = { id: ids.next(), text: TWIN_OF.get(old.text) as string };
  (b.tree.get(s.file) as FileModel).blocks[s.bi]?.body.splice(s.j, 1, line);
  return `fix ${s.file}:${lineNo(b.tree, s, line)} same size (${old.text.trim()} → ${line.text.trim()})`;
};

const twinToVuln: Edit = (r, b, ids, only) => {
  const slots = bodySlots(b.tree, only).filter((s) => {
    const vuln = TWIN.get(lineAt(b.tree, s).text);
    return vuln !== undefined && insertable(b, vuln, around(b.tree.get(s.file) as FileModel, s.bi, s.j, 1));
  });
  if (slots.length === 0) return null;
  const s = pick(r, slots);
  const line = { id: ids.next(), text: TWIN.get(lineAt(b.tree, s).text) as string };
  (b.tree.get(s.file) as FileModel).blocks[s.bi]?.body.splice(s.j, 1, line);
  return `break ${s.file}:${lineNo(b.tree, s, line)} same size (${line.text.trim()})`;
};

/** Inserts `text` (a new line) at a random position where it stays decidable. */
function insertVuln(r: Rand, b: Branch, ids: Ids, text: string, lang: Lang, only?: string): string | null {
  const slots: Slot[] = [];
  for (const [file, f] of b.tree) {
    if (f.lang !== lang || (only !== undefined && file !== only)) continue;
    f.blocks.forEach((block, bi) => {
      for (let j = 0; j <= block.body.length; j++) if (insertable(b, text, around(f, bi, j, 0))) slots.push({ file, bi, j });
    });
  }
  if (slots.length === 0) return null;
  const s = pick(r, slots);
  const line = { id: ids.next(), text };
  (b.tree.get(s.file) as FileModel).blocks[s.bi]?.body.splice(s.j, 0, line);
  return `${s.file}:${lineNo(b.tree, s, line)} (${text.trim()})`;
}

const addVuln: Edit = (r, b, ids, only) => {
  const lang = only !== undefined ? langOf(only) : pick(r, [...new Set([...b.tree.values()].map((f) => f.lang))]);
  const added = insertVuln(r, b, ids, pick(r, POOL[lang]).vuln, lang, only);
  return added && `add vulnerable line ${added}`;
};

const duplicateVuln: Edit = (r, b, ids, only) => {
  const lines = [...b.tree].flatMap(([file, f]) => linesOf(f).filter((l) => isVuln(l.text)).map((l) => ({ file, l, lang: f.lang })));
  if (lines.length === 0) return null;
  const { file, l, lang } = pick(r, lines);
  const added = insertVuln(r, b, ids, l.text, lang, only);
  return added && `duplicate ${file} #${l.id} to ${added}`;
};

const deleteLine: Edit = (r, b, _ids, only) => {
  const slots = bodySlots(b.tree, only).filter((s) => {
    const f = b.tree.get(s.file) as FileModel;
    const [prev, next] = around(f, s.bi, s.j, 1);
    const keepsBody = f.lang === "js" || (f.blocks[s.bi]?.body.length ?? 0) > 1;
    return keepsBody && prev?.text !== next?.text && removable(b, lineAt(b.tree, s));
  });
  if (slots.length === 0) return null;
  const s = pick(r, slots);
  const line = lineAt(b.tree, s);
  const at = lineNo(b.tree, s, line);
  (b.tree.get(s.file) as FileModel).blocks[s.bi]?.body.splice(s.j, 1);
  return `delete ${s.file}:${at} (${line.text.trim()})`;
};

/** A whole function (its lines keep their ids) to another place in its file or another file of its language. */
const moveBlock: Edit = (r, b, _ids, only) => {
  const sources = [...b.tree].filter(([file, f]) => f.lang !== "cfg" && f.blocks.length > 0 && (only === undefined || file === only));
  if (sources.length === 0) return null;
  const [from, source] = pick(r, sources);
  const targets = [...b.tree].filter(([file, f]) => f.lang === source.lang && (file === from || source.blocks.length > 1));
  const [to, target] = pick(r, targets);
  const [block] = source.blocks.splice(r.int(0, source.blocks.length - 1), 1) as [Block];
  target.blocks.splice(r.int(0, target.blocks.length), 0, block);
  return `move ${block.header.text.replace(/\(.*/, "")} from ${from} to ${to}:${linesOf(target).indexOf(block.header) + 1}`;
};

function renamedPath(r: Rand, ids: Ids, file: string, tree: Tree): string {
  const n = ids.next();
  const base = path.posix.basename(file);
  const lang = langOf(file);
  // Mostly renames that change what the analyzers make of the same content: a config file
  // or not (secrets), in or out of a test directory (bandit, secrets).
  const toggled = file.endsWith(".env") ? file.replace(/\.env$/, ".txt") : file.replace(/\.txt$/, ".env");
  const moved = file.startsWith("tests/") ? file.slice("tests/".length) : `tests/${base}`;
  const options = lang === "cfg" ? [toggled, toggled, `conf/settings${n}.env`, `conf/settings${n}.txt`] : [moved, moved, lang === "js" ? `src/m${n}.js` : `lib/m${n}.py`];
  const free = options.filter((p) => !tree.has(p));
  return free.length > 0 ? pick(r, free) : lang === "js" ? `src/r${n}.js` : lang === "py" ? `lib/r${n}.py` : `conf/r${n}.env`;
}

/** git mv, content unchanged, sometimes with a content change in the same commit. */
const renameFile: Edit = (r, b, ids, only) => {
  // Python and config files twice as often: their findings are the ones that depend on the path.
  const files = [...b.tree].filter(([f]) => only === undefined || f === only).flatMap(([f, m]) => (m.lang === "js" ? [f] : [f, f]));
  if (files.length === 0) return null;
  const from = pick(r, files);
  const to = renamedPath(r, ids, from, b.tree);
  fs.mkdirSync(path.join(b.dir, path.posix.dirname(to)), { recursive: true });
  git(b.dir, "mv", from, to);
  b.tree.set(to, b.tree.get(from) as FileModel);
  b.tree.delete(from);
  const also = chance(r, 50) ? pick(r, [modifySafe, addVuln, vulnToTwin, deleteLine])(r, b, ids, to) : null;
  return `rename ${from} → ${to}${also ? ` and ${also}` : " (content unchanged)"}`;
};

const addFile: Edit = (r, b, ids) => {
  const lang = pick(r, ["js", "js", "py", "cfg"] as const);
  const n = ids.next();
  const file = lang === "js" ? `src/n${n}.js` : lang === "py" ? `lib/n${n}.py` : `conf/n${n}.env`;
  // Its lines are all new: identical vulnerable lines in it would be ambiguous with each other.
  const used = new Set<string>();
  const blocks = Array.from({ length: lang === "cfg" ? 1 : r.int(1, 2) }, () => {
    const body = randomBody(r, ids, lang, 3, used);
    body.forEach((l) => isVuln(l.text) && used.add(l.text));
    return newBlock(ids, lang, body);
  });
  const file_ = { lang, blocks };
  for (const l of linesOf(file_)) if (isVuln(l.text) && b.baseline && goneTexts(b.tree, b.baseline).has(l.text)) return null;
  b.tree.set(file, file_);
  return `add file ${file}`;
};

const deleteFile: Edit = (r, b) => {
  const files = [...b.tree].filter(([, f]) => f.lang !== "js" || [...b.tree.values()].filter((g) => g.lang === "js").length > 1).map(([p]) => p);
  const candidates = files.filter((file) => linesOf(b.tree.get(file) as FileModel).every((l) => removable(b, l)));
  if (candidates.length === 0) return null;
  const file = pick(r, candidates);
  b.tree.delete(file);
  return `delete file ${file}`;
};

const EDITS: [Edit, number][] = [
  [modifySafe, 14],
  [vulnToTwin, 12],
  [twinToVuln, 10],
  [addVuln, 12],
  [duplicateVuln, 12],
  [deleteLine, 10],
  [moveBlock, 10],
  [renameFile, 16],
  [addFile, 6],
  [deleteFile, 4],
];

/** One random edit that applies; weighted towards line edits. */
export function randomEdit(r: Rand, b: Branch, ids: Ids): string {
  for (;;) {
    let roll = r.int(1, EDITS.reduce((s, [, w]) => s + w, 0));
    const edit = (EDITS.find(([, w]) => (roll -= w) <= 0) ?? EDITS[0])?.[0] as Edit;
    const done = edit(r, b, ids);
    if (done) return done;
  }
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
  if (JSON.stringify([...committed].sort()) !== JSON.stringify([...expected].sort())) throw new Error(`commit ${b.head} of ${b.name} does not hold the model`);
  return b.head;
}

/** A repository on main with a few files of random functions, committed. */
export function initialTree(r: Rand, ids: Ids): Tree {
  const tree: Tree = new Map();
  const js = (n: number) => ({ lang: "js" as const, blocks: Array.from({ length: n }, () => newBlock(ids, "js", randomBody(r, ids, "js", 5))) });
  tree.set("src/a.js", js(r.int(2, 3)));
  tree.set("src/b.js", js(r.int(1, 3)));
  if (chance(r, 75)) {
    const blocks = Array.from({ length: r.int(1, 2) }, () => newBlock(ids, "py", randomBody(r, ids, "py", 4)));
    // An assert, reported outside test directories only, for renames to move.
    const body = (blocks[0] as Block).body;
    if (body[body.length - 1]?.text !== "    assert data") body.push({ id: ids.next(), text: "    assert data" });
    tree.set("app.py", { lang: "py", blocks });
  }
  if (chance(r, 75)) tree.set("settings.txt", { lang: "cfg", blocks: [newBlock(ids, "cfg", [safeLine(ids, "cfg"), { id: ids.next(), text: POOL.cfg[0]?.vuln as string }])] });
  return tree;
}
