import { constantArguments, codeKind, evidenceFeatures, evidenceOf, fileRole, type FindingFacts } from "./evidence";
import { ReviewModel, reasonsFor, type ReviewModelArtifact } from "./model";
import { FEATURE_SCHEME, featureIndex } from "./features";

const facts = (over: Partial<FindingFacts> = {}): FindingFacts => ({
  analyzer: "semgrep",
  rule_id: "java-sqli",
  cwe_id: "CWE-89",
  file: "src/main/java/app/Users.java",
  start_line: 4,
  snippet: 'stmt.executeQuery("SELECT * FROM users WHERE name = \'" + name + "\'");',
  confidence: "HIGH",
  dataflow: {
    status: "confirmed",
    source_kind: "remote",
    trace: [
      { kind: "source", label: "HTTP request parameter", file: "src/main/java/app/Users.java" },
      { kind: "sink", label: "passed to executeQuery", file: "src/main/java/app/Users.java" },
    ],
  },
  ...over,
});

describe("evidenceOf", () => {
  it("reads the dataflow verdict, its source and the code around the sink", () => {
    const code =
      '@GetMapping("/u")\nList<User> find(@RequestParam String name) {\n  Statement stmt = c.createStatement();\n  stmt.executeQuery("SELECT * FROM users WHERE name = \'" + name + "\'");\n}';
    const ev = evidenceOf(facts(), code);
    expect(ev).toMatchObject({
      language: "java",
      rule: "semgrep:java-sqli",
      dataflow: "confirmed",
      sourceKind: "remote",
      source: "request",
      traceSteps: 2,
      crossesFiles: false,
      confidence: "HIGH",
      constantArguments: false,
      boundParameter: false,
      role: "app",
      kind: "route",
    });
  });

  it("sees a bound parameter, a numeric conversion and constant arguments", () => {
    const code =
      'PreparedStatement ps = c.prepareStatement("SELECT * FROM u WHERE id = ?");\nps.setInt(1, Integer.parseInt(id));\nps.executeQuery();';
    const ev = evidenceOf(
      facts({
        snippet: "ps.executeQuery();",
        dataflow: { status: "unconfirmed", reason: "The taint analysis did not judge a sink call at this place.", trace: [] },
      }),
      code,
    );
    expect(ev).toMatchObject({
      dataflow: "unconfirmed",
      openReasons: ["not-judged"],
      boundParameter: true,
      numericConversion: true,
      constantArguments: true,
      source: null,
    });
  });

  it("ignores what comments say", () => {
    const ev = evidenceOf(facts({ file: "a.py", dataflow: null }), "# prepareStatement escape( allowlist\nos.system(cmd)\n");
    expect(ev).toMatchObject({ dataflow: "not-modelled", boundParameter: false, sanitizer: false, allowlist: false, language: "python" });
  });

  it("tells file roles and code kinds apart", () => {
    expect(fileRole("src/test/java/app/UsersTest.java")).toBe("test");
    expect(fileRole("tests/test_views.py")).toBe("test");
    expect(fileRole("web/static/vendor/jquery.min.js")).toBe("vendored");
    expect(fileRole("docs/examples/demo.py")).toBe("example");
    expect(fileRole("app/api/gen_pb2.py")).toBe("generated");
    expect(fileRole("src/app/users.ts")).toBe("app");
    expect(codeKind("@app.route('/x')\ndef x():\n  return request.args['a']")).toBe("route");
    expect(codeKind("if __name__ == '__main__':\n  main(sys.argv)")).toBe("cli");
    expect(codeKind("def helper(x):\n  return x + 1")).toBe("library");
    expect(constantArguments('exec("ls -l", null)')).toBe(true);
    expect(constantArguments("exec(cmd)")).toBe(false);
    expect(constantArguments("x = 1")).toBe(false);
  });
});

describe("reasons", () => {
  const dims = 1 << 12;
  const withWeights = (named: Record<string, number>): ReviewModel => {
    const w = new Float32Array(dims);
    for (const [n, v] of Object.entries(named)) w[featureIndex(n, dims)] = v;
    const artifact: ReviewModelArtifact = {
      kind: "ax-review-logistic",
      version: "review-lr-test000000",
      featureScheme: FEATURE_SCHEME,
      dims,
      bias: 0,
      weights: Buffer.from(w.buffer).toString("base64"),
      calibration: { a: 1, b: 0 },
      threshold: 0.5,
      rulePriors: { "java|semgrep:java-sqli": [1, 9], "java|injection": [5, 5], "*": [10, 10] },
      tokens: false,
      training: {},
    };
    return new ReviewModel(artifact);
  };

  it("names the evidence that weighed most toward the class, in words", () => {
    const model = withWeights({ "ev:flow:confirmed": 3, "ev:bound": -2, "ev:role:app": 0.01, "prior:rule": 1 });
    const ev = evidenceOf(facts(), "stmt.executeQuery(q + name);");
    const v = model.review({ code: "stmt.executeQuery(q + name);", cwe_id: "CWE-89", file: "Users.java", evidence: ev });
    expect(v.class).toBe("TRUE_POSITIVE");
    expect(v.reasons[0]).toBe("the taint analysis traced request data to this sink");
    expect(v.reasons).not.toContain("the file is application code");

    const safe = evidenceOf(
      facts({ dataflow: null, snippet: "ps.executeQuery();" }),
      'ps = c.prepareStatement("select ?"); ps.setString(1, n); ps.executeQuery();',
    );
    const s = model.review({ code: "ps.executeQuery();", cwe_id: "CWE-89", file: "Users.java", evidence: safe });
    expect(s.class).toBe("FALSE_POSITIVE");
    expect(s.reasons).toContain("the value reaches the query only as a bound parameter");
    // The rule's record (1 right of 10) pushes toward FALSE_POSITIVE and is cited with its counts.
    expect(s.reasons.some((r) => /semgrep:java-sqli was right in 1 of 10/.test(r))).toBe(true);
  });

  it("falls back to a plain reason when no named evidence weighed", () => {
    expect(reasonsFor([], "FALSE_POSITIVE")).toEqual(["the code resembles findings of this kind in the training data"]);
    expect(evidenceFeatures(evidenceOf(facts(), "x")).every((f) => f.name.startsWith("ev:") && f.words.length > 0)).toBe(true);
  });
});

describe("the model server's prompt", () => {
  it("carries the scanner's evidence in words, or says there is none", async () => {
    const { userMessage } = await import("./combine");
    const ev = evidenceOf(facts(), "stmt.executeQuery(q + name);");
    const withEvidence = userMessage({ code: "stmt.executeQuery(q + name);", cwe_id: "CWE-89", file: "Users.java", evidence: ev });
    expect(withEvidence).toContain("- the taint analysis traced request data to this sink");
    expect(userMessage({ code: "x()", cwe_id: "CWE-89" })).toContain("Evidence from the scanner: none");
  });
});

describe("votes as examples", () => {
  it("keep the facts the review ran on, and drop what is not facts", async () => {
    const { voteToExample } = await import("../feedback/examples");
    const input = { code: "q(x)", cwe_id: "CWE-89", file: "a.py", line: "1", facts: facts({ file: "a.py" }) };
    expect(voteToExample({ request_id: "r1", class: "TRUE_POSITIVE", feedback: false, input })).toMatchObject({
      label: 0,
      facts: { analyzer: "semgrep", file: "a.py" },
    });
    const bogus = voteToExample({ request_id: "r2", class: "TRUE_POSITIVE", feedback: true, input: { ...input, facts: { analyzer: 1 } } });
    expect(bogus).not.toHaveProperty("facts");
  });
});
