// Kotlin written the way Kotlin developers write it — string templates, scope functions
// (apply/with/let), property syntax for Java setters, companion constants, object singletons,
// Spring and Ktor handlers — scanned with the rule pack's kt- rules through the normal runner.
// Each `// expect:` comment names the rules that must report that line, and nothing else may
// be reported; the safe twin must stay silent.
import { runAnalyzers } from "../run";
import { astGrepAnalyzer } from "./ast-grep";
import { writeCheckout } from "../../test/analyzer-fixture";
import { removeDir, tempDir } from "../../test/git-fixtures";

let root: string;
beforeAll(() => {
  root = tempDir();
});
afterAll(() => removeDir(root));

const VULNERABLE = `package app

class UserDao(private val conn: Connection) {
    fun run(sql: String) = conn.createStatement().use { it.executeQuery(sql) } // expect: kt-sql-injection
    fun byName(name: String) {
        val sql = """
            SELECT * FROM users WHERE name = '$name'
        """.trimIndent()
        with(conn.createStatement()) { executeQuery(sql) } // expect: kt-sql-injection
    }
}

class Crypto {
    companion object {
        private const val DIGEST = "MD5"
        const val TRANSFORMATION = "DES/CBC/PKCS5Padding"
    }
    fun hash(s: String) = MessageDigest.getInstance(DIGEST).digest(s.toByteArray()) // expect: kt-weak-hash
    fun cipher(key: SecretKey) = Cipher.getInstance(TRANSFORMATION).apply { init(Cipher.ENCRYPT_MODE, key) } // expect: kt-weak-cipher
    fun seal(key: SecretKey, data: ByteArray): ByteArray {
        val iv = ByteArray(16)
        return Cipher.getInstance("AES/CBC/PKCS5Padding").apply { init(Cipher.ENCRYPT_MODE, key, IvParameterSpec(iv)) }.doFinal(data) // expect: kt-static-iv
    }
}

object Shell {
    fun run(cmd: String) = ProcessBuilder().command("sh", "-c", cmd).start() // expect: kt-command-injection
}

fun evalScript(code: String) = ScriptEngineManager().getEngineByExtension("js").eval(code) // expect: kt-script-engine-eval

class HelloServlet : HttpServlet() {
    override fun doGet(req: HttpServletRequest, resp: HttpServletResponse) {
        val name = req.getParameter("name")
        resp.writer.apply { write("<b>$name</b>") } // expect: kt-xss-servlet-writer
        resp.addHeader("Location", req.getParameter("next")) // expect: kt-open-redirect
        val xml = req.inputStream
        val db = DocumentBuilderFactory.newInstance() // expect: kt-xxe-unsafe-parser
        db.isNamespaceAware = true
        db.newDocumentBuilder().parse(xml) // expect: kt-xxe-unsafe-parser
    }
}

class AllowAll : HostnameVerifier {
    override fun verify(hostname: String?, session: SSLSession?): Boolean { // expect: kt-tls-hostname-verification-disabled
        // every host
        return true
    }
}
`;

const SAFE = `package app

class UserDao(private val conn: Connection) {
    fun byName(name: String) =
        conn.prepareStatement("SELECT * FROM users WHERE name = ?").apply { setString(1, name) }.executeQuery()
    private fun run(sql: String) = conn.createStatement().use { it.executeQuery(sql) }
}

class Crypto {
    companion object {
        private const val DIGEST = "SHA-256"
        const val TRANSFORMATION = "AES/GCM/NoPadding"
    }
    fun hash(s: String) = MessageDigest.getInstance(DIGEST).digest(s.toByteArray())
    fun seal(key: SecretKey, data: ByteArray): ByteArray {
        val iv = ByteArray(12).also { SecureRandom().nextBytes(it) }
        return Cipher.getInstance(TRANSFORMATION).apply { init(Cipher.ENCRYPT_MODE, key, GCMParameterSpec(128, iv)) }.doFinal(data)
    }
}

class HelloServlet : HttpServlet() {
    override fun doGet(req: HttpServletRequest, resp: HttpServletResponse) {
        val name = req.getParameter("name")
        resp.writer.apply { write("<b>\${Encode.forHtml(name)}</b>") }
        resp.sendRedirect("/account/" + req.getParameter("id"))
        val cookie = Cookie("theme", "dark").apply { secure = true; isHttpOnly = true }
        resp.addCookie(cookie)
        val db = DocumentBuilderFactory.newInstance().apply {
            setFeature("http://apache.org/xml/features/disallow-doctype-decl", true)
        }
        db.newDocumentBuilder().parse(req.inputStream)
    }
}
`;

/** (line, rule) pairs the `// expect:` comments ask for. */
function expected(source: string): string[] {
  return source.split("\n").flatMap((text, i) => {
    const rules = /\/\/ expect: ([\w, -]+)$/.exec(text)?.[1];
    return rules ? rules.split(",").map((r) => `${i + 1} ${r.trim()}`) : [];
  });
}

it("reports each Kotlin idiom's weakness on its line and leaves the safe twin silent", async () => {
  const dir = writeCheckout(root, "repo", {
    "src/main/kotlin/app/Vulnerable.kt": VULNERABLE,
    "src/main/kotlin/app/Safe.kt": SAFE,
  });
  const result = await runAnalyzers({ dir, timeoutMs: 60_000, maxOutputBytes: 1 << 24, analyzers: [astGrepAnalyzer()] });
  expect(result.analyzers.map((a) => [a.name, a.status])).toEqual([["ast-grep", "completed"]]);
  const at = (file: string) =>
    result.findings
      .filter((f) => f.file === file)
      .map((f) => `${f.start_line} ${f.rule_id}`)
      .sort();
  expect(at("src/main/kotlin/app/Vulnerable.kt")).toEqual(expected(VULNERABLE).sort());
  expect(at("src/main/kotlin/app/Safe.kt")).toEqual([]);
});
