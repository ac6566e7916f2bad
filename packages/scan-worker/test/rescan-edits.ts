/**
 * The edits rescan-property.test.ts makes to a branch (rescan-model.ts): line edits, same-size
 * fixes and breaks, duplicates, moves of whole functions, renames, new and deleted files. Each
 * keeps the ground truth decidable: a new vulnerable line goes only between lines of the
 * baseline with other text, and a line of the baseline is never replaced by an identical new
 * one elsewhere in the same round (that reads as a move).
 */
import fs from "node:fs";
import path from "node:path";
import { git } from "@ax/testkit";
import {
  chance,
  goneTexts,
  isVuln,
  langOf,
  linesOf,
  newBlock,
  pick,
  POOL,
  randomBody,
  TWIN,
  TWIN_OF,
  type Block,
  type Branch,
  type FileModel,
  type Ids,
  type Lang,
  type Line,
  type Rand,
  type Tree,
} from "./rescan-model";

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
  const lines = [...b.tree].flatMap(([file, f]) =>
    linesOf(f)
      .filter((l) => isVuln(l.text))
      .map((l) => ({ file, l, lang: f.lang })),
  );
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
  const options =
    lang === "cfg"
      ? [toggled, toggled, `conf/settings${n}.env`, `conf/settings${n}.txt`]
      : [moved, moved, lang === "js" ? `src/m${n}.js` : `lib/m${n}.py`];
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
  // A file added or replaced since the last commit is not in the index yet: the commit's
  // `git add -A` records the rename then (git stores trees, not renames, either way).
  const tracked = git(b.dir, "ls-files", "--", from) === from;
  if (tracked) {
    fs.mkdirSync(path.join(b.dir, path.posix.dirname(to)), { recursive: true });
    git(b.dir, "mv", "-f", from, to);
  }
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
  const files = [...b.tree]
    .filter(([, f]) => f.lang !== "js" || [...b.tree.values()].filter((g) => g.lang === "js").length > 1)
    .map(([p]) => p);
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
    let roll = r.int(
      1,
      EDITS.reduce((s, [, w]) => s + w, 0),
    );
    const edit = (EDITS.find(([, w]) => (roll -= w) <= 0) ?? EDITS[0])?.[0] as Edit;
    const done = edit(r, b, ids);
    if (done) return done;
  }
}
