/**
 * Java expressions → dataflow IR (ir.ts): literals, names, fields, calls, object creation,
 * operators and lambdas (each lambda becomes a FunctionIR of its own). Statements and
 * declarations are in java.ts.
 */
import type { SgNode } from "@ast-grep/napi";
import type { Expr, FunctionIR, LValue, Loc, Param, Stmt } from "./ir";
import { chainPath, kindOf, locOf, namedChildren, unknown } from "./lower-util";

const NO_LOC: Loc = Object.freeze({ line: 0, column: 0, endLine: 0, endColumn: 0 });

export abstract class JavaExprLowering {
  functions: FunctionIR[] = [];
  private lambdas = 0;
  protected cls: string | null = null;
  /** Assignments met inside an expression (`while ((line = r.readLine()) != null)`), to run before its statement. */
  protected pending: Stmt[] = [];

  abstract block(node: SgNode): Stmt[];

  protected cond(node: SgNode | null): Expr {
    if (!node) return { k: "const", value: true, loc: { line: 0, column: 0, endLine: 0, endColumn: 0 } };
    return this.expr(node);
  }

  protected lvalue(node: SgNode): LValue {
    const e = this.expr(node);
    if (e.k === "var" || e.k === "field" || e.k === "index") return e;
    return { k: "var", name: `<lvalue@${e.loc.line}>`, loc: e.loc };
  }

  expr(node: SgNode): Expr {
    const kind = kindOf(node);
    const literal = this.literal(node, kind);
    if (literal) return literal;
    const loc = locOf(node);
    switch (kind) {
      case "identifier":
      case "type_identifier":
        return { k: "var", name: node.text(), loc };
      case "this":
        return { k: "this", loc };
      case "field_access":
        return this.fieldAccess(node, loc);
      case "scoped_identifier": {
        const parts = node.text().split(".");
        const name = parts.pop() ?? "";
        const base = parts.join(".");
        return { k: "field", object: { k: "var", name: base, loc }, name, path: node.text(), loc };
      }
      case "method_invocation":
        return this.call(node);
      case "object_creation_expression":
        return this.newObject(node, loc);
      case "binary_expression": {
        const left = node.field("left");
        const right = node.field("right");
        if (!left || !right) return unknown(node, []);
        return { k: "binary", op: node.field("operator")?.text() ?? "?", left: this.expr(left), right: this.expr(right), loc };
      }
      case "unary_expression": {
        const operand = node.field("operand");
        return operand ? { k: "unary", op: node.field("operator")?.text() ?? "?", arg: this.expr(operand), loc } : unknown(node, []);
      }
      case "ternary_expression":
        return this.ternary(node, loc);
      case "array_access": {
        const array = node.field("array");
        const index = node.field("index");
        if (!array || !index) return unknown(node, []);
        return { k: "index", object: this.expr(array), index: this.expr(index), loc };
      }
      case "array_creation_expression": {
        const init = node.field("value");
        return init ? this.expr(init) : { k: "array", items: [], loc };
      }
      case "array_initializer":
        return { k: "array", items: namedChildren(node).map((c) => this.expr(c)), loc };
      case "cast_expression": {
        const value = node.field("value");
        const type = node.field("type")?.text();
        return value ? { k: "cast", arg: this.expr(value), loc, ...(type ? { type } : {}) } : unknown(node, []);
      }
      case "lambda_expression":
        return this.lambda(node);
      case "assignment_expression":
        return this.assignmentValue(node, loc);
      case "class_literal":
        return { k: "const", value: node.text(), loc };
      default:
        return unknown(
          node,
          namedChildren(node).map((c) => this.expr(c)),
        );
    }
  }

  /**
   * Literals, without a location: a constant's place is never shown, and asking the parser
   * for every node's range is a large share of the lowering's time.
   */
  private literal(node: SgNode, kind: string): Expr | undefined {
    switch (kind) {
      case "parenthesized_expression": {
        const inner = namedChildren(node)[0];
        return inner ? this.expr(inner) : unknown(node, []);
      }
      case "string_literal":
      case "text_block":
        return { k: "const", value: stringValue(node), loc: NO_LOC };
      case "character_literal":
        return { k: "const", value: node.text().slice(1, -1), loc: NO_LOC };
      case "decimal_integer_literal":
      case "hex_integer_literal":
      case "octal_integer_literal":
      case "binary_integer_literal":
      case "decimal_floating_point_literal":
      case "hex_floating_point_literal": {
        const n = Number(node.text().replace(/[_lLfFdD]/g, ""));
        return Number.isFinite(n) ? { k: "const", value: n, loc: NO_LOC } : unknown(node, []);
      }
      case "true":
        return { k: "const", value: true, loc: NO_LOC };
      case "false":
        return { k: "const", value: false, loc: NO_LOC };
      case "null_literal":
        return { k: "const", value: null, loc: NO_LOC };
    }
    return undefined;
  }

  private fieldAccess(node: SgNode, loc: Loc): Expr {
    const object = node.field("object");
    const name = node.field("field")?.text() ?? "";
    const obj = object ? this.expr(object) : ({ k: "this", loc } as Expr);
    const base = chainPath(obj);
    return { k: "field", object: obj, name, ...(base ? { path: `${base}.${name}` } : {}), loc };
  }

  private newObject(node: SgNode, loc: Loc): Expr {
    const type = node.field("type")?.text() ?? "";
    const args = node.field("arguments");
    return {
      k: "new",
      cls: simpleType(type),
      args: args ? namedChildren(args).map((a) => this.expr(a)) : [],
      loc,
      text: node.text().slice(0, 200),
    };
  }

  private ternary(node: SgNode, loc: Loc): Expr {
    const c = node.field("condition");
    const a = node.field("consequence");
    const b = node.field("alternative");
    if (!c || !a || !b) return unknown(node, []);
    return { k: "cond", test: this.expr(c), then: this.expr(a), else: this.expr(b), loc };
  }

  /** An assignment used as a value: it happens first, then the variable is read. */
  private assignmentValue(node: SgNode, loc: Loc): Expr {
    const left = node.field("left");
    const right = node.field("right");
    if (!left || !right) return unknown(node, []);
    const target = this.lvalue(left);
    this.pending.push({ k: "assign", target, value: this.expr(right), op: node.field("operator")?.text() ?? "=", loc });
    return target.k === "destructure" ? unknown(node, []) : (target as Expr);
  }

  private call(node: SgNode): Expr {
    const loc = locOf(node);
    const object = node.field("object");
    const name = node.field("name")?.text() ?? "";
    const argsNode = node.field("arguments");
    const args = argsNode ? namedChildren(argsNode).map((a) => this.expr(a)) : [];
    const receiver = object ? this.expr(object) : null;
    const base = receiver ? chainPath(receiver) : undefined;
    // Paths stay as written (`URLEncoder.encode`, `System.getenv`): Java code names classes by their simple names.
    const path = receiver ? (base ? `${base}.${name}` : undefined) : name;
    return { k: "call", callee: name, receiver, args, ...(path ? { path } : {}), loc, text: node.text().slice(0, 200) };
  }

  private lambda(node: SgNode): Expr {
    const loc = locOf(node);
    const name = `<lambda@${loc.line}:${loc.column}#${this.lambdas++}>`;
    const paramsNode = node.field("parameters");
    const params: Param[] = paramsNode
      ? kindOf(paramsNode) === "identifier"
        ? [{ name: paramsNode.text() }]
        : paramsNode
            .findAll({ rule: { kind: "identifier" } })
            .filter((i) => i.parent()?.kind?.() !== "type_identifier")
            .map((i) => ({ name: i.text() }))
      : [];
    const body = node.field("body");
    const stmts: Stmt[] = !body
      ? []
      : kindOf(body) === "block"
        ? this.block(body)
        : [{ k: "return", value: this.expr(body), loc: locOf(body) }];
    this.functions.push({ name, cls: this.cls, params, body: stmts, loc });
    return { k: "lambda", name, loc };
  }
}

/** `java.util.List<String>[]` → `List`. */
export function simpleType(type: string): string {
  return type.replace(/<.*$/s, "").replace(/\[\]/g, "").split(".").pop()?.trim() ?? type;
}

function stringValue(node: SgNode): string {
  const text = node.text();
  const body = text.startsWith('"""') ? text.slice(3, -3) : text.slice(1, -1);
  return body.replace(/\\(.)/g, (_, c: string) => ({ n: "\n", t: "\t", r: "\r", "0": "\0" })[c] ?? c);
}
