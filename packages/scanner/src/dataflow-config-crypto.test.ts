// Crypto factories given an algorithm read from the repository's own configuration files
// (issue 20): a git checkout with Java, Python and JavaScript code, scanned through the
// scanner with the pattern rules and the taint analysis. A weak value in the file is one
// finding naming the value, the file and the key; a strong value, a missing key with a strong
// default, and a file reached only through a link out of the checkout give none.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import { astGrepAnalyzer } from "./analyzers/ast-grep";
import { dataflowAnalyzer } from "./analyzers/dataflow";
import { readConfigFiles } from "./analyzers/dataflow-configs";
import { runAnalyzers } from "./run";
import { makeRepo, removeDir, tempDir } from "../test/git-fixtures";

const JAVA = `package com.acme.crypto;

import java.io.InputStream;
import java.security.MessageDigest;
import java.util.Properties;

public class Digests {
  public byte[] weak(byte[] data) throws Exception {
    Properties props = new Properties();
    try (InputStream in = Digests.class.getResourceAsStream("/crypto.properties")) {
      props.load(in);
    }
    return MessageDigest.getInstance(props.getProperty("hash.alg", "SHA-256")).digest(data);
  }

  public byte[] strong(byte[] data) throws Exception {
    Properties props = new Properties();
    try (InputStream in = Digests.class.getResourceAsStream("/strong.properties")) {
      props.load(in);
    }
    return MessageDigest.getInstance(props.getProperty("hash.alg", "MD5")).digest(data);
  }

  public byte[] missingKey(byte[] data) throws Exception {
    Properties props = new Properties();
    try (InputStream in = Digests.class.getResourceAsStream("/crypto.properties")) {
      props.load(in);
    }
    return MessageDigest.getInstance(props.getProperty("absent.alg", "SHA-256")).digest(data);
  }

  public byte[] linked(byte[] data) throws Exception {
    Properties props = new Properties();
    try (InputStream in = Digests.class.getResourceAsStream("/linked.properties")) {
      props.load(in);
    }
    return MessageDigest.getInstance(props.getProperty("hash.alg", "SHA-256")).digest(data);
  }

  public byte[] legacy(byte[] data) throws Exception {
    Properties props = new Properties();
    try (InputStream in = Digests.class.getResourceAsStream("/crypto.properties")) {
      props.load(in);
    }
    return MessageDigest.getInstance(props.getProperty("legacy.alg", "MD5")).digest(data);
  }
}
`;

const PYTHON = `import configparser
import hashlib
import os

HERE = os.path.dirname(__file__)
config = configparser.ConfigParser()
config.read(os.path.join(os.path.dirname(__file__), "settings.ini"))


def weak(data):
    return hashlib.new(config.get("crypto", "hash"), data).hexdigest()


def strong(data):
    return hashlib.new(config["crypto"]["strong"], data).hexdigest()


def missing(data):
    return hashlib.new(config.get("crypto", "absent", fallback="sha256"), data).hexdigest()
`;

const JS = `const crypto = require("crypto");
const cfg = require("./config.json");
const linked = require("./linked.json");

function weak(data) {
  return crypto.createHash(cfg.hash).update(data).digest("hex");
}

function strong(key, iv, data) {
  return crypto.createCipheriv(cfg.cipher, key, iv).update(data);
}

function outside(data) {
  return crypto.createHash(linked.hash).update(data).digest("hex");
}

module.exports = { weak, strong, outside };
`;

let root: string;
let repo: string;
let findings: NormalizedFinding[];

beforeAll(async () => {
  root = tempDir("ax-config-crypto-");
  // A file outside the checkout the repository links to: never read.
  mkdirSync(join(root, "outside"), { recursive: true });
  writeFileSync(join(root, "outside", "evil.properties"), "hash.alg=MD5\n");
  writeFileSync(join(root, "outside", "evil.json"), JSON.stringify({ hash: "md5" }));
  repo = makeRepo(root, "repo", {
    "src/main/java/com/acme/crypto/Digests.java": JAVA,
    "src/main/resources/crypto.properties": "# digests\nhash.alg=MD5\nlegacy.alg = MD5\n",
    "src/main/resources/strong.properties": "hash.alg=SHA-256\n",
    "src/main/resources/linked.properties": { symlink: join(root, "outside", "evil.properties") },
    "app/sums.py": PYTHON,
    "app/settings.ini": "[crypto]\nhash = md5\nstrong = sha512\n",
    "web/lib/hash.js": JS,
    "web/lib/config.json": JSON.stringify({ hash: "sha1", cipher: "aes-256-gcm" }),
    "web/lib/linked.json": { symlink: join(root, "outside", "evil.json") },
  }).path;
  const result = await runAnalyzers({
    dir: repo,
    timeoutMs: 120_000,
    maxOutputBytes: 8 * 1024 * 1024,
    analyzers: [astGrepAnalyzer(), dataflowAnalyzer()],
  });
  findings = result.findings.filter((f) => f.cwe_id === "CWE-328" || f.cwe_id === "CWE-327");
}, 180_000);
afterAll(() => removeDir(root));

const at = (file: string) => findings.filter((f) => f.file === file).map((f) => [f.start_line, f.cwe_id]);

it("Java: MD5 from crypto.properties is one finding naming the file and key; SHA-256, a missing key and a linked file are silent", () => {
  const file = "src/main/java/com/acme/crypto/Digests.java";
  const weak = findings.find((f) => f.file === file && f.start_line === 13);
  expect(weak?.message).toContain('"MD5", read from src/main/resources/crypto.properties: hash.alg');
  expect(weak?.cwe_id).toBe("CWE-328");
  // Line 21: the pattern rule's MD5 default stays its own finding (the file says SHA-256; not judged here).
  expect(at(file).filter(([line]) => line !== 21)).toEqual([
    [13, "CWE-328"],
    [45, "CWE-328"],
  ]);
});

it("a weak default the file confirms is one finding with both sources (pattern rule and resolved value)", () => {
  const legacy = findings.filter((f) => f.file === "src/main/java/com/acme/crypto/Digests.java" && f.start_line === 45);
  expect(legacy).toHaveLength(1);
  expect(legacy[0]!.sources?.map((s) => s.rule_id).sort()).toEqual(["java-weak-hash", "java-weak-hash-resolved"]);
});

it("Python: md5 from settings.ini is reported; sha512 and a missing key with a sha256 fallback are not", () => {
  expect(at("app/sums.py")).toEqual([[11, "CWE-328"]]);
  expect(findings.find((f) => f.file === "app/sums.py")?.message).toContain("app/settings.ini: [crypto] hash");
});

it("JavaScript: sha1 from config.json is reported; aes-256-gcm and a linked JSON file out of the checkout are not", () => {
  expect(at("web/lib/hash.js")).toEqual([[6, "CWE-328"]]);
  expect(findings.find((f) => f.file === "web/lib/hash.js")?.message).toContain("web/lib/config.json: hash");
});

it("reads configuration files without following links", async () => {
  const configs = await readConfigFiles(repo);
  expect([...configs.keys()].sort()).toEqual([
    "app/settings.ini",
    "src/main/resources/crypto.properties",
    "src/main/resources/strong.properties",
    "web/lib/config.json",
  ]);
});
