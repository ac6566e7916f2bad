/**
 * Configuration files of the repository (config-files.ts, config-values.ts) resolve the lookups
 * on configuration the code loads from them, and a crypto factory given an algorithm that is not
 * a literal is judged on the resolved value (weak-algorithms.ts): twins with a weak and a
 * strong value in the file, a key missing from it (the default stands), and no file at all.
 */
import { analyzeProgram, type ProgramAnalysis } from "./engine";
import { LOWERERS, SPECS } from "./languages";
import { parseIni, parseProperties } from "./config-files";
import { dedent } from "../test/java-twins";

type Lang = "java" | "python" | "javascript";

function analyse(lang: Lang, file: string, source: string, configs: Record<string, string>): ProgramAnalysis {
  const text = dedent(source);
  const lines = text.split("\n");
  const module = LOWERERS.get(lang)!(file, text);
  return analyzeProgram([module], { specs: SPECS, lines: () => lines, configs: new Map(Object.entries(configs)) });
}

function uses(a: ProgramAnalysis): { rule: string; cwe: string; line: number; algorithm: string; from?: string }[] {
  return a.algorithms.map((u) => ({
    rule: u.rule_id,
    cwe: u.cwe_id,
    line: u.loc.line,
    algorithm: u.algorithm,
    ...(u.from ? { from: u.from } : {}),
  }));
}

const JAVA_FILE = "src/main/java/com/acme/crypto/Hasher.java";
const JAVA = `
  package com.acme.crypto;
  import java.io.InputStream;
  import java.security.MessageDigest;
  import java.util.Properties;
  public class Hasher {
    public byte[] digest(byte[] data) throws Exception {
      Properties props = new Properties();
      try (InputStream in = getClass().getResourceAsStream("/crypto.properties")) {
        props.load(in);
      }
      MessageDigest md = MessageDigest.getInstance(props.getProperty("hash.alg", "SHA-256"));
      return md.digest(data);
    }
  }
`;

describe("Java: a Properties file loaded from the classpath", () => {
  const resource = "src/main/resources/crypto.properties";
  it("resolves getProperty to the file's MD5 and reports it (CWE-328), naming the file and key", () => {
    const found = uses(analyse("java", JAVA_FILE, JAVA, { [resource]: "# crypto\nhash.alg = MD5\n" }));
    expect(found).toEqual([{ rule: "java-weak-hash-resolved", cwe: "CWE-328", line: 11, algorithm: "MD5", from: `${resource}: hash.alg` }]);
  });
  it("stays silent when the file says SHA-256", () => {
    expect(uses(analyse("java", JAVA_FILE, JAVA, { [resource]: "hash.alg=SHA-256\n" }))).toEqual([]);
  });
  it("falls back to the safe default when the key is missing", () => {
    expect(uses(analyse("java", JAVA_FILE, JAVA, { [resource]: "other.key=MD5\n" }))).toEqual([]);
  });
  it("knows nothing without the file: the default stands", () => {
    expect(uses(analyse("java", JAVA_FILE, JAVA, {}))).toEqual([]);
  });
  it("a weak default with the key missing is reported (a resolved value, not a literal argument)", () => {
    const weakDefault = JAVA.replace('"SHA-256"', '"MD5"');
    expect(uses(analyse("java", JAVA_FILE, weakDefault, { [resource]: "other=1\n" })).map((u) => u.algorithm)).toEqual(["MD5"]);
    expect(uses(analyse("java", JAVA_FILE, weakDefault, { [resource]: "hash.alg=SHA-512\n" }))).toEqual([]);
  });
  it("a cipher transformation built from a configured mode (CWE-327)", () => {
    const src = `
      package com.acme.crypto;
      import javax.crypto.Cipher;
      import java.util.Properties;
      public class Box {
        private static final String ALG = "AES";
        public Cipher make() throws Exception {
          Properties p = new Properties();
          p.load(Box.class.getClassLoader().getResourceAsStream("config/cipher.properties"));
          String mode = p.getProperty("cipher.mode", "GCM");
          return Cipher.getInstance(ALG + "/" + mode + "/PKCS5Padding");
        }
      }
    `;
    const file = "src/main/java/com/acme/crypto/Box.java";
    const cfg = "src/main/resources/config/cipher.properties";
    const found = uses(analyse("java", file, src, { [cfg]: "cipher.mode=ECB\n" }));
    expect(found).toEqual([
      { rule: "java-weak-cipher-resolved", cwe: "CWE-327", line: 10, algorithm: "AES/ECB/PKCS5Padding", from: `${cfg}: cipher.mode` },
    ]);
    expect(uses(analyse("java", file, src, { [cfg]: "cipher.mode=CBC\n" }))).toEqual([]);
  });
  it("a Properties field loaded in a static block", () => {
    const src = `
      package com.acme.crypto;
      import java.security.MessageDigest;
      import java.util.Properties;
      public class Sums {
        private static final Properties PROPS = new Properties();
        static {
          try {
            PROPS.load(Sums.class.getResourceAsStream("sums.properties"));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }
        public MessageDigest md() throws Exception {
          return MessageDigest.getInstance(PROPS.getProperty("digest"));
        }
      }
    `;
    const file = "src/main/java/com/acme/crypto/Sums.java";
    const cfg = "src/main/resources/com/acme/crypto/sums.properties";
    expect(uses(analyse("java", file, src, { [cfg]: "digest=SHA1\n" })).map((u) => [u.algorithm, u.line])).toEqual([["SHA1", 14]]);
    expect(uses(analyse("java", file, src, { [cfg]: "digest=SHA-384\n" }))).toEqual([]);
  });
});

describe("Python: configparser and JSON next to the module", () => {
  const src = `
    import configparser
    import hashlib
    import os

    config = configparser.ConfigParser()
    config.read(os.path.join(os.path.dirname(__file__), "settings.ini"))

    def fingerprint(data):
        return hashlib.new(config.get("crypto", "hash", fallback="sha256"), data).hexdigest()

    def fingerprint2(data):
        local = configparser.ConfigParser()
        local.read("conf/app.cfg")
        return hashlib.new(local["crypto"]["hash"], data).hexdigest()
  `;
  it("resolves config.get and config[s][k] to the files' values", () => {
    const found = uses(
      analyse("python", "app/sums.py", src, { "app/settings.ini": "[crypto]\nHash = md5\n", "conf/app.cfg": "[crypto]\nhash: sha1\n" }),
    );
    expect(found).toEqual([
      { rule: "py-weak-hash-resolved", cwe: "CWE-328", line: 9, algorithm: "md5", from: "app/settings.ini: [crypto] hash" },
      { rule: "py-weak-hash-resolved", cwe: "CWE-328", line: 14, algorithm: "sha1", from: "conf/app.cfg: [crypto] hash" },
    ]);
  });
  it("safe values, and a missing key falling back to sha256", () => {
    const found = uses(
      analyse("python", "app/sums.py", src, { "app/settings.ini": "[crypto]\nother = md5\n", "conf/app.cfg": "[crypto]\nhash = sha512\n" }),
    );
    expect(found).toEqual([]);
  });
});

describe("other loads", () => {
  it("Python json.load(open(...)) next to the module, and Java new FileInputStream of a relative path", () => {
    const py = `import hashlib, json, os\n\ndef f(d):\n    with open(os.path.join(os.path.dirname(__file__), "c.json")) as fh:\n        cfg = json.load(fh)\n    return hashlib.new(cfg["alg"], d)\n`;
    expect(uses(analyse("python", "svc/h.py", py, { "svc/c.json": '{"alg": "md4"}' })).map((u) => u.from)).toEqual(["svc/c.json: alg"]);
    expect(uses(analyse("python", "svc/h.py", py, { "svc/c.json": '{"alg": "sha3_256"}' }))).toEqual([]);
    const java = `
      package com.acme;
      import java.io.FileInputStream;
      import java.util.Properties;
      import javax.crypto.KeyGenerator;
      public class Keys {
        public KeyGenerator gen() throws Exception {
          Properties p = new Properties();
          p.load(new FileInputStream("config/keys.properties"));
          return KeyGenerator.getInstance(p.getProperty("key.alg", "AES"));
        }
      }
    `;
    const file = "src/main/java/com/acme/Keys.java";
    expect(uses(analyse("java", file, java, { "config/keys.properties": "key.alg=DESede\n" })).map((u) => [u.cwe, u.algorithm])).toEqual([
      ["CWE-327", "DESede"],
    ]);
    expect(uses(analyse("java", file, java, { "config/keys.properties": "key.alg=AES\n" }))).toEqual([]);
  });
});

describe("JavaScript: JSON configuration", () => {
  const src = `
    const crypto = require("crypto");
    const fs = require("fs");
    const path = require("path");
    const cfg = require("./config.json");
    const settings = JSON.parse(fs.readFileSync(path.join(__dirname, "settings.json"), "utf8"));

    function sum(data) {
      return crypto.createHash(cfg.hash.algorithm).update(data).digest("hex");
    }
    function seal(key, iv, data) {
      return crypto.createCipheriv(settings.cipher, key, iv).update(data);
    }
  `;
  it("resolves cfg.a.b and a parsed file to their values", () => {
    const found = uses(
      analyse("javascript", "src/lib/sum.js", src, {
        "src/lib/config.json": JSON.stringify({ hash: { algorithm: "md5" } }),
        "src/lib/settings.json": JSON.stringify({ cipher: "des-ede3-cbc" }),
      }),
    );
    expect(found).toEqual([
      { rule: "js-weak-hash-resolved", cwe: "CWE-328", line: 8, algorithm: "md5", from: "src/lib/config.json: hash.algorithm" },
      { rule: "js-weak-cipher-resolved", cwe: "CWE-327", line: 11, algorithm: "des-ede3-cbc", from: "src/lib/settings.json: cipher" },
    ]);
  });
  it("strong values stay silent", () => {
    const found = uses(
      analyse("javascript", "src/lib/sum.js", src, {
        "src/lib/config.json": JSON.stringify({ hash: { algorithm: "sha256" } }),
        "src/lib/settings.json": JSON.stringify({ cipher: "aes-256-gcm" }),
      }),
    );
    expect(found).toEqual([]);
  });
  it("a resolved constant too, and Python's usedforsecurity=False is not weak", () => {
    const py = `import hashlib\nALG = "md5"\n\ndef a(d):\n    return hashlib.new(ALG, d)\n\ndef b(d):\n    return hashlib.new(ALG, d, usedforsecurity=False)\n`;
    expect(uses(analyse("python", "app/h.py", py, {})).map((u) => [u.line, u.algorithm, u.from])).toEqual([[5, "md5", undefined]]);
  });
  it("a literal argument is left to the pattern rules", () => {
    const lit = `const crypto = require("crypto");\nfunction f(d) { return crypto.createHash("md5").update(d); }\n`;
    expect(uses(analyse("javascript", "src/a.js", lit, {}))).toEqual([]);
  });
});

describe("parsers", () => {
  it("reads .properties separators, continuations and escapes", () => {
    const p = parseProperties("a=1\nb : 2\nc 3\n# x=9\n! y=9\nd=long\\\n   value\ne=\\u0041\\tb\n");
    expect(Object.fromEntries(p)).toEqual({ a: "1", b: "2", c: "3", d: "longvalue", e: "A\tb" });
  });
  it("reads .ini sections, DEFAULT, lower-cased keys and interpolation", () => {
    const p = parseIni("[DEFAULT]\nbase = x\n[s]\nKey = %(base)s/y\n; c\nmulti = a\n  b\n");
    expect(Object.fromEntries(p.get("s")!)).toEqual({ base: "x", key: "x/y", multi: "a\nb" });
  });
});
