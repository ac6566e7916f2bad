/**
 * The Java taint analysis end to end (see test/java-twins.ts): other constructs (lambdas,
 * anonymous classes), and lowerJava on odd input, which never throws.
 */
import { lowerJava } from "./java";
import { dedent, inServlet, lineOf, MAIN, places, scan, servlet, SQL, twins } from "../test/java-twins";

// ---- beyond the brief: flows through other constructs -------------------------------------

twins("other constructs", [
  {
    name: "try-with-resources reader",
    vuln: inServlet(`
      try (BufferedReader reader = request.getReader()) {
        String line = reader.readLine();
        stmt.executeQuery("SELECT * FROM users WHERE name = '" + line + "'"); // SINK
      }
    `),
    safe: inServlet(`
      try (BufferedReader reader = request.getReader()) {
        String line = reader.readLine();
        stmt.executeQuery("SELECT * FROM users WHERE name = 'guest'"); // SINK
      }
    `),
  },
  {
    name: "try / catch / finally around the sink",
    vuln: inServlet(`
      String name = request.getParameter("name");
      try {
        stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
      } catch (SQLException e) {
        log("query failed", e);
      } finally {
        stmt.close();
      }
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      try {
        name = "guest";
      } finally {
        stmt.close();
      }
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
    `),
  },
]);

twins("lambdas and anonymous classes", [
  {
    name: "forEach with a lambda",
    vuln: inServlet(`
      List<String> names = Arrays.asList(request.getParameterValues("name"));
      names.forEach(n -> {
        try {
          stmt.executeQuery("SELECT * FROM users WHERE name = '" + n + "'"); // SINK
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      });
    `),
    safe: inServlet(`
      String[] requested = request.getParameterValues("name");
      List<String> names = Arrays.asList("guest", "admin");
      names.forEach(n -> {
        try {
          stmt.executeQuery("SELECT * FROM users WHERE name = '" + n + "'"); // SINK
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      });
    `),
  },
  {
    name: "anonymous class capturing a local",
    vuln: inServlet(`
      final String name = request.getParameter("name");
      Runnable job = new Runnable() {
        @Override
        public void run() {
          try {
            stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
        }
      };
      job.run();
    `),
    safe: inServlet(`
      final String name = request.getParameter("name");
      final String fixed = "guest";
      Runnable job = new Runnable() {
        @Override
        public void run() {
          try {
            stmt.executeQuery("SELECT * FROM users WHERE name = '" + fixed + "'"); // SINK
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
        }
      };
      job.run();
    `),
    bug: {
      vuln:
        "java.ts: the body of an anonymous class (`new Runnable() { … }`) is not lowered at all (object_creation_expression keeps " +
        "only type and arguments), and captured locals are not visible to lambdas or inner methods either",
    },
  },
]);

// ---- lowering never throws ---------------------------------------------------------------

const ODD_INPUTS: readonly [string, string][] = [
  ["empty file", ""],
  ["only whitespace and comments", "\n\n  // nothing here\n/* nor here */\n"],
  ["only a package declaration", "package com.example;\n"],
  ["unterminated class", 'public class Broken {\n  void f() {\n    String s = request.getParameter("x");\n'],
  ["garbage", "}}}{{{ ;;; @@@ class class ( ) -> :: <<>>"],
  ["syntax error inside a method", 'class A { void f( { int x = ; stmt.executeQuery("a" + ); } }'],
  ["unbalanced string", 'class A { String s = "abc; void f() {} }'],
  [
    "generics",
    dedent(`
      import java.util.*;
      import java.util.function.*;
      class Box<T extends Comparable<? super T>> implements Iterable<T> {
        private final Map<String, List<Map<Integer, T[]>>> nested = new HashMap<>();
        <R> List<R> map(Function<? super T, ? extends R> f) { return new ArrayList<R>(); }
        public Iterator<T> iterator() { return Collections.<T>emptyList().iterator(); }
        static <K, V extends List<? extends K>> V pick(Map<K, V> m, K k) { return m.get(k); }
      }
    `),
  ],
  [
    "lambdas and method references",
    dedent(`
      import java.util.*;
      class L {
        void f(List<String> xs) {
          Runnable r = () -> {};
          xs.forEach(x -> System.out.println(x));
          xs.stream().map(String::trim).filter(s -> !s.isEmpty()).forEach(System.out::println);
          java.util.function.BiFunction<Integer, Integer, Integer> add = (a, b) -> a + b;
          java.util.function.Function<String, String> id = (String s) -> { return s; };
          Comparator<String> c = Comparator.comparing((String s) -> s.length()).thenComparing(s -> s);
        }
      }
    `),
  ],
  [
    "anonymous classes",
    dedent(`
      class Anon {
        void f() {
          new Thread(new Runnable() {
            @Override public void run() { System.out.println("hi"); }
          }).start();
          Comparator<String> c = new Comparator<>() {
            public int compare(String a, String b) { return a.compareTo(b); }
          };
        }
      }
    `),
  ],
  [
    "try-with-resources and multi-catch",
    dedent(`
      class T {
        void f(javax.sql.DataSource ds) {
          try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT 1")) {
            ps.executeQuery();
          } catch (SQLException | RuntimeException e) {
            throw new IllegalStateException(e);
          } finally {
            System.out.println("done");
          }
          try (var in = new FileInputStream("x"); in) { }
        }
      }
    `),
  ],
  [
    "enhanced for",
    dedent(`
      class E {
        void f(Map<String, String> m, int[][] grid) {
          for (Map.Entry<String, String> e : m.entrySet()) { System.out.println(e.getKey()); }
          for (final var row : grid) for (int cell : row) { continue; }
          outer: for (String k : m.keySet()) { if (k.isEmpty()) break outer; }
        }
      }
    `),
  ],
  [
    "nested, inner, local classes, enums, records, interfaces, annotations",
    dedent(
      `
      public class Outer {
        static class Nested { static final boolean ON = true; String get() { return "n"; } }
        class Inner { void g() { Outer.this.toString(); } }
        enum Color { RED("r"), GREEN("g") { @Override String code() { return "G"; } }; ` +
        `private final String c; Color(String c) { this.c = c; } String code() { return c; } }
        record Point(int x, int y) { Point { if (x < 0) throw new IllegalArgumentException(); } }
        interface Shape { default double area() { return 0; } static Shape unit() { return null; } }
        @interface Marker { String value() default ""; }
        void f() {
          class Local { int v = 1; }
          new Local();
          Outer.Nested n = new Outer.Nested();
          Outer.Inner i = this.new Inner();
        }
        static { System.out.println("static init"); }
        { System.out.println("instance init"); }
      }
    `,
    ),
  ],
  [
    "modern syntax: switch expressions, yield, text blocks, var, pattern instanceof",
    dedent(`
      class M {
        String f(Object o, int k) {
          var s = """
              multi
              line "text"
              """;
          int v = switch (k) { case 1, 2 -> 10; case 3 -> { yield 30; } default -> 0; };
          String w = switch (k) { case 1: yield "a"; default: yield "b"; };
          if (o instanceof String str && !str.isEmpty()) return str;
          synchronized (this) { do { k--; } while (k > 0); }
          int[] arr = new int[] {1, 2, 3};
          char ch = '\\n';
          long big = 0xFFFF_FFFFL;
          double d = 1.5e3;
          assert k == 0 : "k";
          return s + v + w + arr[0] + ch + big + d;
        }
      }
    `),
  ],
  ["long concatenation", `class C { String s = ${Array.from({ length: 2000 }, (_, i) => `"p${i}"`).join(" + ")}; }`],
  ["deeply nested parentheses", `class C { int x = ${"(".repeat(300)}1${")".repeat(300)}; }`],
  ["unicode identifiers", "class Ünïcode { void ƒ(String 名前) { String ß = 名前; } }"],
];

describe("lowerJava on odd input", () => {
  it.each(ODD_INPUTS)("does not throw on %s, and the engine runs on the result", (_name, source) => {
    const module = lowerJava("Odd.java", source);
    expect(module.file).toBe("Odd.java");
    expect(module.language).toBe("java");
    expect(() => scan({ "Odd.java": source })).not.toThrow();
  });

  it("lowers nested and local classes, initialisers and lambdas as their own units", () => {
    const source = ODD_INPUTS.find(([n]) => n.startsWith("nested"))?.[1] ?? "";
    const module = lowerJava("Outer.java", source);
    expect(module.classes.map((c) => c.name)).toEqual(
      expect.arrayContaining(["Outer", "Outer$Nested", "Outer$Inner", "Outer$Color", "Outer$Point", "Outer$Shape", "Outer$Local"]),
    );
    expect(module.functions.filter((f) => f.name === "<clinit>").length).toBeGreaterThanOrEqual(2);
    const lambdas = lowerJava("L.java", ODD_INPUTS.find(([n]) => n.startsWith("lambdas"))?.[1] ?? "").functions.filter((f) =>
      f.name.startsWith("<lambda"),
    );
    expect(lambdas.length).toBeGreaterThanOrEqual(5);
  });

  it("keeps imports by simple name and drops wildcard imports", () => {
    const module = lowerJava(MAIN, servlet('stmt.execute("SELECT 1");'));
    expect(module.imports).toMatchObject({
      URLEncoder: "java.net.URLEncoder",
      Paths: "java.nio.file.Paths",
      InputSource: "org.xml.sax.InputSource",
    });
    expect(Object.keys(module.imports)).not.toContain("*");
  });

  it("finds taint in a file that also contains syntax errors elsewhere", () => {
    const source = servlet(`
      String name = request.getParameter("name");
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
    `).replace("private Connection conn;", "private Connection conn;\n  private int broken = ;");
    expect(() => lowerJava(MAIN, source)).not.toThrow();
    expect(places(scan({ [MAIN]: source }))).toEqual([{ ...SQL, file: MAIN, line: lineOf(source, "// SINK") }]);
  });
});
