import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpDir } from "@ax/testkit/temp";
import { voteToExample } from "../feedback/examples";
import { codeContext } from "./context";
import { FEATURE_SCHEME, featurize, stripComments, tokens } from "./features";
import { fsSourceReader } from "./fs-reader";
import { atThreshold, expectedCalibrationError, rocAuc } from "./metrics";
import { ReviewModel, sigmoid, type ReviewModelArtifact } from "./model";
import { RelatedIndex, reviewCode } from "./related";
import { encodeWeights, fitPlatt, linearScore, prng, trainLogistic, type Example } from "./train";

const JAVA = [
  "public class Users {",
  "    public void handle(HttpServletRequest request) throws Exception {",
  '        String name = request.getParameter("name");',
  "        if (name != null) {",
  '            run("select * from users where name = \'" + name + "\'");',
  "        }",
  "    }",
  "",
  "    private void run(String sql) {",
  "        statement.execute(sql);",
  "    }",
  "}",
].join("\n");

describe("codeContext", () => {
  it("finds the enclosing function, not the if block, and names it", () => {
    const ctx = codeContext(JAVA, 5, 5, "Users.java");
    expect(ctx).toMatchObject({ startLine: 2, endLine: 7, how: "function", name: "handle" });
    expect(codeContext(JAVA, 10, 10, "Users.java")).toMatchObject({ startLine: 9, endLine: 11, name: "run" });
  });

  it("uses indentation for Python and a window when no function encloses the line", () => {
    const py = ["import os", "", "def f(x):", "    y = x + 1", "    os.system(y)", "", "z = 1"].join("\n");
    expect(codeContext(py, 5, 5, "a.py")).toMatchObject({ startLine: 3, endLine: 5, name: "f" });
    expect(codeContext(py, 7, 7, "a.py")).toMatchObject({ how: "window", startLine: 1 });
  });
});

describe("features", () => {
  it("drops comments, masks verdict-carrying names and keeps literal shapes", () => {
    expect(stripComments('a(); // FLAW here\n/* FIX */ b("//not a comment");', "x.java")).toBe('a(); \n b("//not a comment");');
    expect(tokens('void goodG2BSink(String data) { run("x" + data, ""); } /* POTENTIAL FLAW */', "x.java")).toEqual([
      "void",
      "ID_MASKED",
      "(",
      "string",
      "data",
      ")",
      "{",
      "run",
      "(",
      "STR",
      "+",
      "data",
      ",",
      "STR_EMPTY",
      ")",
      ";",
      "}",
    ]);
  });

  it("gives bad and good twins the same vector once their names are masked", () => {
    const bad = featurize({ code: "void badSink(String data) { exec(data); }", cwe_id: "CWE-78", file: "a.java" }, 1 << 12);
    const good = featurize({ code: "void goodB2GSink(String data) { exec(data); }", cwe_id: "CWE-78", file: "a.java" }, 1 << 12);
    expect([...bad]).toEqual([...good]);
    const other = featurize({ code: "void badSink(String data) { exec(data); }", cwe_id: "CWE-89", file: "a.java" }, 1 << 12);
    expect([...other]).not.toEqual([...bad]);
    // The code block is L2-normalized (1) and the evidence block adds "no evidence" (1).
    const norm = Math.sqrt([...bad.values()].reduce((s, v) => s + v * v, 0));
    expect(norm).toBeCloseTo(Math.SQRT2, 6);
  });
});

describe("metrics", () => {
  it("computes ROC AUC with ties, and NaN with one class", () => {
    expect(
      rocAuc([
        { p: 0.9, y: 1 },
        { p: 0.1, y: 0 },
      ]),
    ).toBe(1);
    expect(
      rocAuc([
        { p: 0.1, y: 1 },
        { p: 0.9, y: 0 },
      ]),
    ).toBe(0);
    expect(
      rocAuc([
        { p: 0.5, y: 1 },
        { p: 0.5, y: 0 },
      ]),
    ).toBe(0.5);
    expect(rocAuc([{ p: 0.5, y: 1 }])).toBeNaN();
  });

  it("computes ECE of the returned class and the threshold figures", () => {
    const items = [
      { p: 0.9, y: 1 as const },
      { p: 0.9, y: 0 as const },
      { p: 0.2, y: 0 as const },
      { p: 0.2, y: 0 as const },
    ];
    // Bin 0.8–0.9: confidence 0.9, accuracy 0.5; bin 0.8 (1 − 0.2): accuracy 1.
    expect(expectedCalibrationError(items, 0.5).ece).toBeCloseTo(0.5 * 0.4 + 0.5 * 0.2, 10);
    expect(atThreshold(items, 0.5)).toMatchObject({ fpCaught: 2 / 3, tpDismissed: 0, accuracy: 0.75 });
  });
});

describe("training", () => {
  const random = prng(7);
  const examples: Example[] = [];
  for (let i = 0; i < 400; i++) {
    const y = i % 4 === 0 ? 0 : 1;
    // Feature 1 tells the classes apart 90% of the time; feature 2 is noise.
    const signal = (y === 1) === random() < 0.9 ? 1 : 0;
    examples.push({
      x: new Map([
        [1, signal],
        [2, random()],
      ]),
      y,
    });
  }

  it("is deterministic and learns a separating weight", () => {
    const a = trainLogistic(examples, { dims: 8, epochs: 5, learningRate: 0.2, l2: 1e-5, seed: 1 });
    const b = trainLogistic(examples, { dims: 8, epochs: 5, learningRate: 0.2, l2: 1e-5, seed: 1 });
    expect(encodeWeights(a.weights)).toBe(encodeWeights(b.weights));
    expect(a.weights[1]).toBeGreaterThan(1);
    expect(rocAuc(examples.map((e) => ({ p: linearScore(a, e.x), y: e.y })))).toBeGreaterThan(0.85);
  });

  it("calibrates with Platt scaling: the mean probability matches the positive rate", () => {
    const m = trainLogistic(examples, { dims: 8, epochs: 5, learningRate: 0.2, l2: 1e-5, seed: 1 });
    const scores = examples.map((e) => linearScore(m, e.x));
    const c = fitPlatt(
      scores,
      examples.map((e) => e.y),
    );
    const mean = scores.reduce((s, x) => s + sigmoid(c.a * x + c.b), 0) / scores.length;
    expect(mean).toBeCloseTo(0.75, 1);
    expect(
      expectedCalibrationError(
        scores.map((x, i) => ({ p: sigmoid(c.a * x + c.b), y: (examples[i] as Example).y })),
        0.5,
      ).ece,
    ).toBeLessThan(0.06);
  });
});

describe("ReviewModel", () => {
  it("loads the shipped artifact and answers a calibrated class", () => {
    const model = ReviewModel.load();
    expect(model.version).toMatch(/^review-lr-[0-9a-f]{10}$/);
    const v = model.review({
      code: 'stmt.execute("select * from t where a = \'" + request.getParameter("a") + "\'");',
      cwe_id: "CWE-89",
      file: "A.java",
    });
    expect(["TRUE_POSITIVE", "FALSE_POSITIVE"]).toContain(v.class);
    expect(v.confidence).toBeCloseTo(v.class === "TRUE_POSITIVE" ? v.pTrue : 1 - v.pTrue, 4);
    expect(v.pTrue >= model.artifact.threshold).toBe(v.class === "TRUE_POSITIVE");
  });

  it("refuses an artifact of another feature scheme or with the wrong number of weights", () => {
    const base: ReviewModelArtifact = {
      kind: "ax-review-logistic",
      version: "t",
      featureScheme: FEATURE_SCHEME,
      dims: 4,
      bias: 0,
      weights: encodeWeights(new Float32Array(4)),
      calibration: { a: 1, b: 0 },
      threshold: 0.5,
      training: {},
    };
    expect(() => new ReviewModel({ ...base, featureScheme: FEATURE_SCHEME + 1 })).toThrow(/feature scheme/);
    expect(() => new ReviewModel({ ...base, dims: 8 })).toThrow(/weight bytes/);
    expect(new ReviewModel(base).review({ code: "x" })).toMatchObject({ pTrue: 0.5, class: "TRUE_POSITIVE", confidence: 0.5 });
  });
});

describe("reviewCode and fsSourceReader", () => {
  let root: string;
  beforeAll(() => {
    root = tmpDir("ax-related-");
    mkdirSync(join(root, "src"));
    writeFileSync(
      join(root, "src/Sink.java"),
      ["public class Sink {", "    public void sink(String data) {", "        stmt.execute(data);", "    }", "}"].join("\n"),
    );
    writeFileSync(
      join(root, "src/Caller.java"),
      [
        "public class Caller {",
        "    public void go() {",
        '        String data = "constant";',
        "        new Sink().sink(data);",
        "    }",
        "}",
      ].join("\n"),
    );
    writeFileSync(
      join(root, "src/Unrelated.java"),
      ["public class Unrelated {", "    public void other(Thing t) {", "        t.sink(input());", "    }", "}"].join("\n"),
    );
    writeFileSync(join(root, "outside.java"), "class Secret { void sink(String d) { leak(); } }\n");
    symlinkSync(join(root, "outside.java"), join(root, "src/Link.java"));
  });

  it("adds the callers that name the callee's class, outermost first", async () => {
    const code = await reviewCode(new RelatedIndex(fsSourceReader(root)), "src/Sink.java", 3, 3);
    expect(code.indexOf('String data = "constant"')).toBeGreaterThanOrEqual(0);
    expect(code.indexOf('String data = "constant"')).toBeLessThan(code.indexOf("stmt.execute(data)"));
    expect(code).not.toContain("input()");
  });

  it("adds the helpers the function calls", async () => {
    writeFileSync(
      join(root, "src/Helper.java"),
      [
        "public class Helper {",
        "    String source() {",
        '        return System.getenv("X");',
        "    }",
        "    void use() {",
        "        String d = source();",
        "        stmt.execute(d);",
        "    }",
        "}",
      ].join("\n"),
    );
    const code = await reviewCode(new RelatedIndex(fsSourceReader(root)), "src/Helper.java", 7, 7);
    expect(code).toContain("System.getenv");
  });

  it("never reads through a link or outside the root", async () => {
    const reader = fsSourceReader(root);
    expect(await reader.lines("src/Link.java")).toBeNull();
    expect(await reader.lines("../etc/passwd")).toBeNull();
    expect(await reader.lines("/etc/passwd")).toBeNull();
    expect(await reader.siblings("src/Sink.java")).not.toContain("src/Link.java");
  });
});

describe("feedback examples", () => {
  it("turns votes into labels: true confirms the class, false flips it", () => {
    const input = { code: "x()", cwe_id: "CWE-89", file: "a.java", line: "3" };
    expect(voteToExample({ request_id: "r1", class: "TRUE_POSITIVE", feedback: true, input })).toMatchObject({
      label: 1,
      group: "feedback/r1",
      line: 3,
      source: "feedback",
    });
    expect(voteToExample({ request_id: "r2", class: "TRUE_POSITIVE", feedback: false, input })?.label).toBe(0);
    expect(voteToExample({ request_id: "r3", class: "FALSE_POSITIVE", feedback: false, input })?.label).toBe(1);
    expect(voteToExample({ request_id: "r4", class: "FALSE_POSITIVE", feedback: true, input })?.label).toBe(0);
    expect(voteToExample({ request_id: "r5", class: null, feedback: true, input })).toBeNull();
    expect(voteToExample({ request_id: "r6", class: "TRUE_POSITIVE", feedback: true, input: { code: "" } })).toBeNull();
  });
});
