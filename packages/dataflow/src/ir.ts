/**
 * The small intermediate form the taint analysis runs on. Each language's lowering
 * (java.ts, python.ts, javascript.ts) turns a tree-sitter tree from @ast-grep/napi into
 * this, so the analysis itself (engine.ts) is written once. Anything a lowering does not
 * understand becomes an `unknown` node that keeps its children: taint flows through what
 * we cannot read rather than vanishing, and constants do not.
 */

/** 1-based lines and columns, as findings report them; end is inclusive of the last line. */
export interface Loc {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export type ConstValue = string | number | boolean | null;

export type Expr =
  | { k: "const"; value: ConstValue; loc: Loc }
  | { k: "var"; name: string; loc: Loc }
  | { k: "this"; loc: Loc }
  /**
   * `object.name`; for a static access `Class.name` the object is `{k:"var", name:"Class"}`.
   * `path` is the dotted text of a pure name chain (`request.args`, `req.query.id`,
   * `IO.STATIC_FINAL_TRUE`), used by source rules and by constant lookups; absent otherwise.
   */
  | { k: "field"; object: Expr; name: string; path?: string; loc: Loc }
  /**
   * A call. `callee` is the bare method or function name (`execute`, `getParameter`,
   * `system`); `receiver` the object it is called on (null for a plain function call);
   * `path` the dotted text of the callee when it is a pure name chain (`os.system`,
   * `subprocess.run`, `request.args.get`, `Runtime.getRuntime().exec` has none).
   * `kwargs` holds keyword arguments (Python) by name.
   */
  | { k: "call"; callee: string; receiver: Expr | null; args: Expr[]; kwargs?: Record<string, Expr>; path?: string; loc: Loc; text: string }
  /** `new Cls(args)`; `cls` is the simple class name (no package, no generics). */
  | { k: "new"; cls: string; args: Expr[]; loc: Loc; text: string }
  /** Arithmetic, comparison, logical and string concatenation (`+`); `op` as written (`==`, `and` → `&&`, `or` → `||`). */
  | { k: "binary"; op: string; left: Expr; right: Expr; loc: Loc }
  /** `!`, `-`, `not` → `!`, `typeof`, … */
  | { k: "unary"; op: string; arg: Expr; loc: Loc }
  | { k: "cond"; test: Expr; then: Expr; else: Expr; loc: Loc }
  | { k: "index"; object: Expr; index: Expr; loc: Loc }
  /** Array, list, tuple or set literal, and `new T[]{…}`. */
  | { k: "array"; items: Expr[]; loc: Loc }
  /** Object or dict literal with constant keys where known (null key: computed). */
  | { k: "object"; entries: { key: string | null; value: Expr }[]; loc: Loc }
  /** f-strings, template literals, `%`-formatting: a string built from parts. */
  | { k: "template"; parts: Expr[]; loc: Loc }
  /** A type cast `(String) x`, `x as T`, `x!`: the value of `arg`. */
  | { k: "cast"; arg: Expr; loc: Loc; type?: string }
  /** A function literal (lambda, arrow function): analysed as its own FunctionIR by `name`. */
  | { k: "lambda"; name: string; loc: Loc }
  /** Anything else: its value depends on `parts` (taint flows through), never a constant. */
  | {
      k: "unknown";
      parts: Expr[];
      loc: Loc;
      /** A Python slice `a:b:c` used as an index: its bounds (null where omitted), for folding `s[1:3]`. */
      slice?: (Expr | null)[];
    };

export type LValue =
  | { k: "var"; name: string; loc: Loc }
  | { k: "field"; object: Expr; name: string; path?: string; loc: Loc }
  | { k: "index"; object: Expr; index: Expr; loc: Loc }
  /** `a, b = …`, `const {x, y} = …`, `[a, b] = …`: each target receives the whole value. */
  | { k: "destructure"; targets: LValue[]; loc: Loc };

export type Stmt =
  /**
   * `op` is "=" or a compound operator ("+=", "|=", …). A declaration with an initializer is
   * an assign with `decl` set (where the language marks declarations: Java, JS `let`/`const`/`var`),
   * so that a write to a field of the same name is told apart from a new local.
   */
  | { k: "assign"; target: LValue; value: Expr; op: string; loc: Loc; decl?: boolean; type?: string }
  /** A declaration without an initializer (`String data;`): the variable exists, unknown value, untainted. */
  | { k: "declare"; name: string; loc: Loc; type?: string }
  | { k: "expr"; expr: Expr; loc: Loc }
  | { k: "return"; value: Expr | null; loc: Loc }
  | { k: "throw"; value: Expr | null; loc: Loc }
  | { k: "if"; test: Expr; then: Stmt[]; else: Stmt[]; loc: Loc }
  /**
   * while/for/do/for-each. `test` null means "always" (`while (true)` lowers to a const test
   * instead, so the engine can fold it). For-each: `each` binds target to the elements of
   * `iterable` (taint of the iterable flows to the target).
   */
  | {
      k: "loop";
      kind: "while" | "do" | "for" | "foreach";
      test: Expr | null;
      init: Stmt[];
      update: Stmt[];
      body: Stmt[];
      each?: { target: LValue; iterable: Expr };
      loc: Loc;
    }
  /** `values` null is the default case. Bodies fall through to the next case unless they end in break. */
  | { k: "switch"; test: Expr; cases: { values: Expr[] | null; body: Stmt[] }[]; loc: Loc }
  | { k: "try"; body: Stmt[]; handlers: { param: string | null; body: Stmt[] }[]; finally: Stmt[]; loc: Loc }
  | { k: "break"; loc: Loc }
  | { k: "continue"; loc: Loc }
  | { k: "block"; body: Stmt[]; loc: Loc };

export interface Param {
  name: string;
  /** Declared type as written, simple name (`HttpServletRequest`, `str`, `Request`), when known. */
  type?: string;
}

export interface FunctionIR {
  /** Method or function name; "<module>" for top-level code; a generated name for lambdas. */
  name: string;
  /**
   * Enclosing class, or null. Java: the class's key (`com.acme.Outer$Inner`, see ClassIR.name);
   * Python and JavaScript: the class name as written (the Program keys it by its module file).
   */
  cls: string | null;
  /** Declared return type as written, without generics (`com.acme.Helper`, `String`), when known (Java). */
  returns?: string;
  params: Param[];
  body: Stmt[];
  loc: Loc;
  isStatic?: boolean;
  isConstructor?: boolean;
  /**
   * Parameters that carry untrusted input because of the framework (FastAPI/Flask route
   * parameters, Spring `@RequestParam`, an Express handler's `req`): their indexes, and a
   * label for the trace ("route parameter `id`"); remote unless `kind` says local (a Java
   * `main`'s command-line arguments).
   */
  sourceParams?: { index: number; label: string; kind?: "remote" | "local" }[];
  /**
   * Python and JavaScript closures: the enclosing functions' locals this function reads. Their
   * values are those of the enclosing function where the closure is created (closures.ts).
   */
  captures?: string[];
}

export interface ClassIR {
  /**
   * Java: the package-qualified binary name (`com.acme.Outer$Inner`; a local class is keyed
   * under its enclosing class as well); Python and JavaScript: the name as written.
   */
  name: string;
  superclass: string | null;
  interfaces?: string[];
  /** `type`: the declared type as written, without generics (Java). */
  fields: { name: string; value: Expr | null; isStatic: boolean; isFinal: boolean; loc: Loc; type?: string }[];
}

export interface ModuleIR {
  /** Repo-relative POSIX path. */
  file: string;
  language: "java" | "python" | "javascript" | "typescript";
  /** The Java package (`com.acme`), when declared. */
  package?: string;
  functions: FunctionIR[];
  classes: ClassIR[];
  /**
   * Imported names mapped to what they stand for, e.g. Python `from os import system` →
   * `system: "os.system"`, JS `const cp = require("child_process")` → `cp: "child_process"`,
   * `import { exec } from "child_process"` → `exec: "child_process.exec"`. Rules match on the
   * resolved dotted path, so an alias does not hide a sink.
   */
  imports: Record<string, string>;
  /** JavaScript: exported names mapped to the function they export (`default` → `handler`); see modules.ts. */
  exports?: Record<string, string>;
  /** JavaScript: modules whose every export this one re-exports (`export * from "./impl"`). */
  reexports?: string[];
}
