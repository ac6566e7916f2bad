// Kotlin files are selected by extension and scanned by ast-grep with the rule pack's kt-
// rules, through the normal runner: a vulnerable file and its safe twin.
import { runAnalyzers } from "../run";
import { astGrepAnalyzer } from "./ast-grep";
import { writeCheckout } from "../../test/analyzer-fixture";
import { removeDir, tempDir } from "../../test/git-fixtures";

let root: string;
beforeAll(() => {
  root = tempDir();
});
afterAll(() => removeDir(root));

const VULNERABLE = `@RestController
class UserController(private val jdbc: JdbcTemplate) {
    @GetMapping("/users")
    fun find(@RequestParam name: String): List<Map<String, Any>> =
        jdbc.queryForList("SELECT * FROM users WHERE name = '$name'")

    @GetMapping("/hello")
    @ResponseBody
    fun hello(@RequestParam name: String): String = "<h1>Hello $name</h1>"
}

fun digest(data: ByteArray): ByteArray = MessageDigest.getInstance("MD5").digest(data)
`;

const SAFE = `@RestController
class UserController(private val jdbc: JdbcTemplate) {
    @GetMapping("/users")
    fun find(@RequestParam name: String): List<Map<String, Any>> =
        jdbc.queryForList("SELECT * FROM users WHERE name = ?", name)

    @GetMapping("/hello")
    @ResponseBody
    fun hello(@RequestParam name: String): String = "<h1>Hello \${HtmlUtils.htmlEscape(name)}</h1>"
}

fun digest(data: ByteArray): ByteArray = MessageDigest.getInstance("SHA-256").digest(data)
`;

it("scans .kt and .kts files with the kt- rules and leaves the safe twin silent", async () => {
  const dir = writeCheckout(root, "repo", {
    "src/main/kotlin/app/UserController.kt": VULNERABLE,
    "src/main/kotlin/app/SafeController.kt": SAFE,
    "scripts/hash.main.kts": 'val md = java.security.MessageDigest.getInstance("SHA-1")\n',
  });
  const result = await runAnalyzers({ dir, timeoutMs: 60_000, maxOutputBytes: 1 << 24, analyzers: [astGrepAnalyzer()] });
  expect(result.analyzers.map((a) => [a.name, a.status])).toEqual([["ast-grep", "completed"]]);
  expect(result.findings.map((f) => [f.file, f.start_line, f.rule_id, f.cwe_id]).sort()).toEqual([
    ["scripts/hash.main.kts", 1, "kt-weak-hash", "CWE-328"],
    ["src/main/kotlin/app/UserController.kt", 12, "kt-weak-hash", "CWE-328"],
    ["src/main/kotlin/app/UserController.kt", 5, "kt-sql-injection", "CWE-89"],
    ["src/main/kotlin/app/UserController.kt", 9, "kt-xss-spring-response", "CWE-79"],
  ]);
});
