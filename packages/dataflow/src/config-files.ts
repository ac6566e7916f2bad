/**
 * Configuration files of the analysed repository (Java `.properties`, configparser
 * `.ini`/`.cfg`/`.conf`, JSON): parsed, and found again from the reference the code loads them
 * by (`getResourceAsStream("/crypto.properties")`, `config.read("app.ini")`,
 * `require("./config.json")`). A loaded file becomes an abstract value whose entries are
 * constants that remember where they came from (`konst.from`: file and key), so lookups on it
 * resolve to the file's values (config-values.ts). The scanner hands the files in (small ones
 * only, read without following links); the engine never reads the disk.
 */
import { createHash } from "node:crypto";
import { constant, EMPTY, type Value } from "./values";

/**
 * Where a loaded file is said to be, as source-policy.ts records it on a bundled value:
 * `mod:p` relative to the module's folder, `modfile:` the module itself, `rel:p` relative to the
 * working directory, `res:p` a Java resource relative to the class's package (`res:/p`: the
 * classpath root), `cp:p` a class loader's resource (the classpath root).
 */
export type ConfigRef = string;

type Parsed =
  | { kind: "properties"; entries: Map<string, string> }
  | { kind: "ini"; sections: Map<string, Map<string, string>> }
  | { kind: "json"; data: unknown };

const MAX_DEPTH = 8;
const MAX_ENTRIES = 2000;

export class ConfigFiles {
  readonly digest: string;
  /** Fields and module globals already resolved (config-values.ts `globalConfig`), by key. */
  readonly globals = new Map<string, Value | undefined>();
  private readonly parsed = new Map<string, Parsed | null>();
  private readonly paths: string[];

  constructor(private readonly texts: ReadonlyMap<string, string>) {
    this.paths = [...texts.keys()].sort();
    const h = createHash("sha256");
    for (const p of this.paths) h.update(p).update("\0").update(texts.get(p)!).update("\0");
    this.digest = h.digest("hex");
  }

  get size(): number {
    return this.paths.length;
  }

  /** The repository files a reference made from `moduleFile` may name: the nearest tier that has any. */
  locate(ref: ConfigRef, moduleFile: string): string[] {
    const colon = ref.indexOf(":");
    const kind = ref.slice(0, colon);
    const p = ref.slice(colon + 1);
    const dir = moduleFile.includes("/") ? moduleFile.slice(0, moduleFile.lastIndexOf("/")) : "";
    const has = (x: string | null) => x !== null && this.texts.has(x);
    const suffix = (name: string) => this.paths.filter((f) => f === name || f.endsWith(`/${name}`));
    const tiers: (() => string[])[] = [];
    if (kind === "mod") tiers.push(() => [normalize(dir ? `${dir}/${p}` : p)].filter(has) as string[]);
    else if (kind === "rel") {
      tiers.push(() => [normalize(p)].filter(has) as string[]);
      tiers.push(() => [normalize(dir ? `${dir}/${p}` : p)].filter(has) as string[]);
      tiers.push(() => (normalize(p) ? suffix(normalize(p)!) : []));
    } else if (kind === "res" || kind === "cp") {
      const name = kind === "res" && !p.startsWith("/") ? joinPackage(moduleFile, p) : p.replace(/^\/+/, "");
      const testCode = /(^|\/)src\/test\//.test(moduleFile);
      const resources = (n: string) => suffix(n).filter((f) => f.endsWith(`resources/${n}`) && (testCode || !/(^|\/)src\/test\//.test(f)));
      if (name)
        tiers.push(
          () => resources(name),
          () => suffix(name),
        );
      if (kind === "res" && !p.startsWith("/")) tiers.push(() => [normalize(dir ? `${dir}/${p}` : p)].filter(has) as string[]);
    }
    for (const tier of tiers) {
      const found = tier();
      if (found.length) return found;
    }
    return [];
  }

  /** The loaded value of the files a reference names, in the format `as`; undefined when none is known. */
  load(ref: ConfigRef, moduleFile: string, as: Parsed["kind"]): Value | undefined {
    const files = this.locate(ref, moduleFile).slice(0, 8);
    const values = files.map((f) => this.valueOf(f, as)).filter((v): v is Value => v !== undefined);
    if (!values.length) return undefined;
    return values.reduce((a, b) => agree(a, b));
  }

  private valueOf(path: string, as: Parsed["kind"]): Value | undefined {
    if (!this.parsed.has(path)) this.parsed.set(path, parse(this.texts.get(path) ?? "", as));
    const p = this.parsed.get(path);
    if (!p || p.kind !== as) return undefined;
    const budget = { left: MAX_ENTRIES };
    if (p.kind === "properties") return keyed([...p.entries].map(([k, v]) => [k, constant(v, `${path}: ${k}`)]));
    if (p.kind === "ini") {
      const entries: [string, Value][] = [];
      for (const [section, options] of p.sections) {
        const inner = [...options].map(([k, v]) => [k, constant(v, `${path}: [${section}] ${k}`)] as [string, Value]);
        entries.push([section, keyed(inner)]);
        for (const [k, v] of inner) entries.push([`${section}\u0000${k}`, v]);
      }
      return keyed(entries);
    }
    return jsonValue(p.data, path, "", 0, budget);
  }
}

function keyed(entries: [string, Value][]): Value {
  return { facts: [], keys: new Map(entries) };
}

/** Two candidate files: an entry both hold with the same constant stays, any other is unknown (but trusted). */
function agree(a: Value, b: Value): Value {
  if (a.konst || b.konst) return a.konst && b.konst && a.konst.v === b.konst.v ? a : EMPTY;
  const keys = new Map<string, Value>();
  for (const [k, v] of a.keys ?? []) {
    const w = b.keys?.get(k);
    keys.set(k, w ? agree(v, w) : EMPTY);
  }
  for (const k of b.keys?.keys() ?? []) if (!keys.has(k)) keys.set(k, EMPTY);
  return { facts: [], keys };
}

function jsonValue(data: unknown, path: string, at: string, depth: number, budget: { left: number }): Value {
  if (budget.left-- <= 0 || depth > MAX_DEPTH) return EMPTY;
  if (data === null || ["string", "number", "boolean"].includes(typeof data))
    return constant(data as string | number | boolean | null, `${path}: ${at || "(root)"}`);
  if (Array.isArray(data)) {
    const items = data.slice(0, 256).map((d, i) => [String(i), jsonValue(d, path, `${at}[${i}]`, depth + 1, budget)] as [string, Value]);
    return { facts: [], keys: new Map(items), ...(data.length <= 256 ? { len: data.length } : {}) };
  }
  if (typeof data === "object") {
    const entries = Object.entries(data as Record<string, unknown>).map(
      ([k, v]) => [k, jsonValue(v, path, at ? `${at}.${k}` : k, depth + 1, budget)] as [string, Value],
    );
    return keyed(entries);
  }
  return EMPTY;
}

function parse(text: string, as: Parsed["kind"]): Parsed | null {
  try {
    if (as === "properties") return { kind: "properties", entries: parseProperties(text) };
    if (as === "ini") return { kind: "ini", sections: parseIni(text) };
    return { kind: "json", data: JSON.parse(text.replace(/^\uFEFF/, "")) as unknown };
  } catch {
    return null;
  }
}

/** `java.util.Properties.load`: `key=value`, `key: value` or `key value`, `#`/`!` comments, `\` continuations and escapes. */
export function parseProperties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length && out.size < MAX_ENTRIES; i++) {
    let line = lines[i]!.replace(/^[ \t\f]+/, "");
    if (!line || line.startsWith("#") || line.startsWith("!")) continue;
    while (/(^|[^\\])(\\\\)*\\$/.test(line) && i + 1 < lines.length) line = line.slice(0, -1) + lines[++i]!.replace(/^[ \t\f]+/, "");
    const m = /^((?:\\.|[^\\=:\s])*)\s*[=:]?\s*(.*)$/s.exec(line);
    if (!m) continue;
    out.set(unescapeProperty(m[1]!), unescapeProperty(m[2]!));
  }
  return out;
}

function unescapeProperty(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_all, c: string) => {
    if (c.length === 5) return String.fromCharCode(parseInt(c.slice(1), 16));
    return ({ t: "\t", n: "\n", r: "\r", f: "\f" } as Record<string, string>)[c] ?? c;
  });
}

/**
 * Python configparser: `[section]`, `key = value` or `key: value` (keys lower-cased, as
 * `optionxform` does), `#`/`;` comment lines, indented continuation lines, `[DEFAULT]` values in
 * every section, and basic `%(name)s` interpolation.
 */
export function parseIni(text: string): Map<string, Map<string, string>> {
  const raw = new Map<string, Map<string, string>>();
  let section: Map<string, string> | null = null;
  let last: string | null = null;
  let count = 0;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (count++ > MAX_ENTRIES) break;
    if (/^\s*([#;].*)?$/.test(line)) continue;
    if (/^\s/.test(line) && section && last !== null) {
      section.set(last, `${section.get(last)}\n${line.trim()}`);
      continue;
    }
    const head = /^\[([^\]]+)\]\s*$/.exec(line.trim());
    if (head) {
      const name = head[1]!;
      section = raw.get(name) ?? new Map();
      raw.set(name, section);
      last = null;
      continue;
    }
    const m = /^([^=:]+?)\s*[=:]\s*(.*)$/.exec(line.trim());
    if (!m || !section) continue;
    last = m[1]!.toLowerCase();
    section.set(last, m[2]!);
  }
  const defaults = raw.get("DEFAULT") ?? new Map<string, string>();
  const out = new Map<string, Map<string, string>>();
  for (const [name, options] of raw) {
    if (name === "DEFAULT") continue;
    const all = new Map([...defaults, ...options]);
    out.set(name, new Map([...all].map(([k, v]) => [k, interpolate(v, all)])));
  }
  return out;
}

function interpolate(v: string, options: ReadonlyMap<string, string>, depth = 0): string {
  if (depth > 5 || !v.includes("%")) return v;
  return v.replace(/%\(([^)]+)\)s|%%/g, (all, name?: string) => {
    if (!name) return "%";
    const sub = options.get(name.toLowerCase());
    return sub === undefined ? all : interpolate(sub, options, depth + 1);
  });
}

/** A POSIX path without `.` and `..` parts; null when it climbs out of the repository. */
export function normalize(p: string): string | null {
  const out: string[] = [];
  for (const part of p.split("/")) {
    if (!part || part === ".") continue;
    if (part === "..") {
      if (!out.length) return null;
      out.pop();
    } else out.push(part);
  }
  return out.join("/");
}

/** A resource name relative to a Java class's package: the package from the source path (after `java/`, `kotlin/` or `src/`). */
function joinPackage(moduleFile: string, name: string): string {
  const m = /(?:^|\/)(?:java|kotlin|src)\/(.+)\/[^/]+$/.exec(moduleFile);
  const pkg = m ? m[1]!.replace(/^(main|test)\/(java|kotlin)\//, "") : "";
  return pkg ? `${pkg}/${name}` : name;
}
