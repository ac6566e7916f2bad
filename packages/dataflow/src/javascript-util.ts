/** Syntax-tree helpers for the JavaScript/TypeScript lowering (javascript.ts). */
import type { SgNode } from "@ast-grep/napi";
import { kindOf } from "./lower-util";

export { kindOf, locOf } from "./lower-util";

/** Named children without comments, which tree-sitter puts anywhere. */
export function kids(node: SgNode): SgNode[] {
  return node.namedChildren().filter((c) => {
    const kind = kindOf(c);
    return kind !== "comment" && kind !== "html_comment";
  });
}

/** `node.field(name)`; napi's typing narrows field names per kind, which a generic walker cannot use. */
export function fieldOf(node: SgNode, name: string): SgNode | null {
  return (node.field as (n: string) => SgNode | null).call(node, name);
}

const TYPE_KINDS = new Set([
  "type_annotation",
  "type_arguments",
  "type_parameters",
  "type_identifier",
  "predefined_type",
  "accessibility_modifier",
  "override_modifier",
  "asserts_annotation",
  "type_predicate_annotation",
  "opting_type_annotation",
  "omitting_type_annotation",
  "adding_type_annotation",
  "decorator",
  "type_query",
  "literal_type",
  "nested_type_identifier",
]);

/** TypeScript type syntax and modifiers: no runtime value, skipped wherever children are walked. */
export function isTypeNode(node: SgNode): boolean {
  const kind = kindOf(node);
  return TYPE_KINDS.has(kind) || kind.endsWith("_type") || kind.endsWith("_type_clause");
}

/** Named children that can carry a runtime value. */
export function valueKids(node: SgNode): SgNode[] {
  return kids(node).filter((c) => !isTypeNode(c));
}

const SIMPLE_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", "0": "\0" };

export function unescapeJs(seq: string): string {
  const body = seq.slice(1);
  if (body.startsWith("\n") || body.startsWith("\r")) return "";
  const simple = SIMPLE_ESCAPES[body];
  if (simple !== undefined) return simple;
  const hex = /^x([0-9a-fA-F]{2})$|^u([0-9a-fA-F]{4})$|^u\{([0-9a-fA-F]+)\}$/.exec(body);
  if (hex) {
    const code = parseInt(hex[1] ?? hex[2] ?? hex[3] ?? "0", 16);
    return code <= 0x10ffff ? String.fromCodePoint(code) : "";
  }
  return body;
}

/** The value of a string literal, escapes decoded. */
export function stringValue(node: SgNode): string {
  let out = "";
  for (const c of kids(node)) {
    const kind = kindOf(c);
    if (kind === "escape_sequence") out += unescapeJs(c.text());
    else if (kind === "string_fragment" || kind === "html_character_reference") out += c.text();
  }
  return out;
}

/** `Express.Request<P>` → `Request`: rules match declared types by simple name. */
export function simpleTypeName(text: string): string | undefined {
  const base = text
    .replace(/^\s*:\s*/, "")
    .replace(/<[\s\S]*$/, "")
    .trim();
  if (!/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(base)) return undefined;
  return base.split(".").pop();
}

/** Strips `node:` so `node:child_process` and `child_process` resolve alike. */
export function moduleName(spec: string): string {
  return spec.startsWith("node:") ? spec.slice(5) : spec;
}

export function truncate(text: string): string {
  return text.length > 200 ? text.slice(0, 200) : text;
}

/** `node.fieldChildren(name)`, typed loosely for the same reason as fieldOf. */
export function fieldKids(node: SgNode, name: string): SgNode[] {
  return (node.fieldChildren as (n: string) => SgNode[]).call(node, name).filter((c) => kindOf(c) !== "comment");
}

/** Whether an unnamed keyword (`static`, `readonly`, `default`) is among the node's tokens. */
export function hasToken(node: SgNode, token: string): boolean {
  return node.children().some((c) => !c.isNamed() && c.text() === token);
}
