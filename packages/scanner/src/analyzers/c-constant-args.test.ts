import { callArguments, constantString, hasConstantSafeArgument } from "./c-constant-args";

const src = (...lines: string[]) => lines;

describe("callArguments", () => {
  it("splits top-level arguments across lines, keeping literals, nested calls and dropping comments", () => {
    const lines = src('    snprintf(out, sizeof(out), /* fmt */ ok ? "a,b" : "c)", f(x, y), \',\');');
    expect(callArguments(lines, 1, 5, "snprintf")).toEqual(["out", "sizeof(out)", 'ok ? "a,b" : "c)"', "f(x, y)", "','"]);
    expect(callArguments(src("printf(", '  "%d\\n", // count', "  n);"), 1, 1, "printf")).toEqual(['"%d\\n"', "n"]);
    expect(callArguments(src("system();"), 1, 1, "system")).toEqual([]);
  });

  it("gives up on what it cannot read", () => {
    expect(callArguments(src("printf(x"), 1, 1, "printf")).toBeNull(); // unclosed
    expect(callArguments(src("  printf(x);"), 1, 1, "printf")).toBeNull(); // wrong column
    expect(callArguments(src('printf("open'), 1, 1, "printf")).toBeNull(); // unterminated literal
  });
});

describe("constantString", () => {
  it("accepts literals, concatenation, parentheses and conditionals of constants", () => {
    expect(constantString('"a" "b"', [])).toEqual(["ab"]);
    expect(constantString('(L"wide")', [])).toEqual(["wide"]);
    expect(constantString('isPrime(n) ? "true\\n" : "false\\n"', [])).toEqual(["true\\n", "false\\n"]);
    expect(constantString('a ? (b ? "x" : "y") : "z"', [])).toEqual(["x", "y", "z"]);
  });

  it("rejects anything that may carry data", () => {
    expect(constantString("argv[1]", [])).toBeNull();
    expect(constantString('ok ? "x" : name', [])).toBeNull();
    expect(constantString('"x" + 1', [])).toBeNull();
    expect(constantString("buf", src("char buf[64];"))).toBeNull();
  });

  it("follows a name bound once to a constant", () => {
    expect(constantString("FMT", src('#define FMT "%d items"'))).toEqual(["%d items"]);
    expect(constantString("fmt", src('    const char *fmt = "%s\\n";', "    printf(fmt, s);"))).toEqual(["%s\\n"]);
    expect(constantString("q", src('static const char q[] = "select 1";'))).toEqual(["select 1"]);
    expect(constantString("p", src('char *p = "ls";', "system(p);"))).toEqual(["ls"]);
  });

  it("does not follow a name that is rebound, writable, declared twice or shadowed", () => {
    expect(constantString("p", src('char *p = "ls";', "p = argv[1];"))).toBeNull();
    expect(constantString("p", src('char *p = "ls";', "read_into(&p);"))).toBeNull();
    expect(constantString("p", src('char *p = "ls";', "p++;"))).toBeNull();
    expect(constantString("b", src('char b[] = "ls";', "strcpy(b, argv[1]);"))).toBeNull();
    expect(constantString("f", src('const char *f = "a";', 'const char *f = "b";'))).toBeNull();
    expect(constantString("fmt", src('static const char *fmt = "%d";', "void log_it(const char *fmt) {", "  printf(fmt);"))).toBeNull();
    expect(constantString("p", src('char *p = "a", *q = "b";'))).toBeNull();
  });
});

describe("hasConstantSafeArgument", () => {
  it("clears a constant format or command and keeps every data-carrying one", () => {
    const lines = src(
      'snprintf(r, sizeof(r), ok ? "true\\n" : "false\\n");',
      "snprintf(r, sizeof(r), user);",
      'system("ls -l");',
      "system(cmd);",
      'fprintf(stderr, "%s", name);',
      "fprintf(out, name);",
      'sprintf(q, "%d", n);',
      'sprintf(q, "%s", name);',
      'sprintf(q, "%-10s|", name);',
      'strcpy(d, "x");',
    );
    const at = (line: number, name: string) => hasConstantSafeArgument(lines, line, 1, name);
    expect([1, 2].map((l) => at(l, "snprintf"))).toEqual([true, false]);
    expect([3, 4].map((l) => at(l, "system"))).toEqual([true, false]);
    expect([5, 6].map((l) => at(l, "fprintf"))).toEqual([true, false]);
    // sprintf with a constant format still overflows through %s.
    expect([7, 8, 9].map((l) => at(l, "sprintf"))).toEqual([true, false, false]);
    // Only calls whose risk is the constant argument are cleared.
    expect(at(10, "strcpy")).toBe(false);
  });
});
