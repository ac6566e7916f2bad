import { defaultAnalyzers } from "./registry";

it("lists the built-in analyzers with their languages and cache policy", () => {
  expect(defaultAnalyzers().map((a) => [a.name, a.languages, a.cacheable])).toEqual([
    ["ast-grep", ["javascript", "typescript", "python", "java", "go", "php", "ruby", "csharp", "kotlin"], true],
    ["dataflow", ["java", "python", "javascript", "typescript"], false],
    ["bandit", ["python"], true],
    ["cppcheck", ["c", "cpp"], false],
    ["flawfinder", ["c", "cpp"], true],
    ["shellcheck", ["shell"], true],
    ["secrets", "*", true],
    ["jsp", ["jsp"], true],
    ["templates", ["template"], true],
  ]);
});

it("appends operator-configured SARIF tools, from parsed configs or the raw SARIF_TOOLS JSON", () => {
  const json =
    '[{"name":"semgrep","command":["semgrep","--sarif","{files}"],"languages":"*"},' +
    '{"name":"gosec","command":["gosec","-fmt=sarif","./..."],"languages":["go"]}]';
  expect(defaultAnalyzers({ sarifTools: json }).map((a) => a.name)).toEqual([
    "ast-grep",
    "dataflow",
    "bandit",
    "cppcheck",
    "flawfinder",
    "shellcheck",
    "secrets",
    "jsp",
    "templates",
    "semgrep",
    "gosec",
  ]);
  const [gosec] = defaultAnalyzers({ sarifTools: [{ name: "gosec", command: ["gosec", "./..."], languages: ["go"] }] }).slice(-1);
  expect(gosec).toMatchObject({ name: "gosec", languages: ["go"], cacheable: false });
  expect(() => defaultAnalyzers({ sarifTools: '[{"name":"secrets","command":["x"],"languages":"*"}]' })).toThrow(/built-in analyzer/);
});
