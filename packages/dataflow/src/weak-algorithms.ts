/**
 * Weak cryptographic algorithms named by a resolved value. The pattern rules judge the
 * algorithm written as a literal at a crypto factory (`MessageDigest.getInstance("MD5")`); an
 * algorithm the code reads from a constant, a field, a concatenation or a bundled
 * configuration file (`props.getProperty("hash.alg", "SHA-256")` with `hash.alg=MD5` in
 * `crypto.properties`) is only known to the interpretation. At each factory call whose
 * algorithm argument is not a literal, the interpreter hands the argument's value here; a weak
 * constant is an `AlgorithmUse`, reported by the engine beside the traces (no taint involved:
 * CWE-328 for hashes, CWE-327 for ciphers).
 */
import type { Expr, Loc } from "./ir";
import type { Value } from "./values";

export interface AlgorithmUse {
  rule_id: string;
  cwe_id: "CWE-327" | "CWE-328";
  title: string;
  message: string;
  remediation: string;
  file: string;
  loc: Loc;
  /** The resolved algorithm. */
  algorithm: string;
  /** The configuration file and key it was read from, when it was. */
  from?: string;
  /** The call's line, trimmed (set by the engine). */
  snippet?: string;
}

type Kind = "hash" | "mac" | "signature" | "cipher" | "key";

interface Factory {
  path: RegExp;
  arg: number;
  kw?: string;
  kind: Kind;
}

const FACTORIES: Record<string, readonly Factory[]> = {
  java: [
    { path: /(^|\.)MessageDigest\.getInstance$/, arg: 0, kind: "hash" },
    { path: /(^|\.)Mac\.getInstance$/, arg: 0, kind: "mac" },
    { path: /(^|\.)Signature\.getInstance$/, arg: 0, kind: "signature" },
    { path: /(^|\.)Cipher\.getInstance$/, arg: 0, kind: "cipher" },
    { path: /(^|\.)(KeyGenerator|SecretKeyFactory)\.getInstance$/, arg: 0, kind: "key" },
  ],
  python: [
    { path: /^hashlib\.(new|pbkdf2_hmac)$/, arg: 0, kind: "hash" },
    { path: /^hmac\.(new|digest)$/, arg: 2, kw: "digestmod", kind: "mac" },
  ],
  javascript: [
    { path: /^((node:)?crypto\.)?createHash$/, arg: 0, kind: "hash" },
    { path: /^((node:)?crypto\.)?createHmac$/, arg: 0, kind: "mac" },
    { path: /^((node:)?crypto\.)?(createCipheriv|createDecipheriv|createCipher|createDecipher)$/, arg: 0, kind: "cipher" },
  ],
};

const WEAK_HASH = /^(md2|md4|md5|sha|sha-?0|sha-?1|ripemd(-?128)?|haval-?128)$/i;
const WEAK_MAC = /^(hmac-?)?(md2|md4|md5)$/i;
const WEAK_SIGNATURE = /^(md2|md4|md5|sha-?1?)with/i;
const WEAK_KEY =
  /^(des|desede|desedewrap|tripledes|3des|rc2|arc2|rc4|arc4|arcfour|blowfish|idea|pbewith(md5|sha1)and(des|tripledes|desede|rc2|rc4).*)$/i;
const WEAK_JS_CIPHER = /^(des|des-.*|des3|des-ede.*|rc2.*|rc4.*|bf|bf-.*|blowfish.*|idea.*|.*-ecb)$/i;

/** Why an algorithm is weak for its kind of factory, or undefined when it is not. */
export function weakness(kind: Kind, algorithm: string, language: string): string | undefined {
  const a = algorithm.trim();
  switch (kind) {
    case "hash":
      return WEAK_HASH.test(a) ? `${a} is a broken hash function` : undefined;
    case "mac":
      return WEAK_MAC.test(a) ? `${a} is a MAC over a broken hash function` : undefined;
    case "signature":
      return WEAK_SIGNATURE.test(a) ? `${a} signs a broken hash` : undefined;
    case "key":
      return WEAK_KEY.test(a) ? `${a} is a broken or risky cipher` : undefined;
    case "cipher":
      return language === "java" ? javaCipher(a) : WEAK_JS_CIPHER.test(a) ? `${a} is a broken cipher or the ECB mode` : undefined;
  }
}

/** A Java transformation `alg/mode/padding`: a weak cipher, the ECB mode (bare "AES" defaults to it), or RSA without padding. */
function javaCipher(t: string): string | undefined {
  const [alg = "", mode, padding] = t.split("/");
  if (WEAK_KEY.test(alg)) return `${alg} is a broken or risky cipher`;
  if (/^(rsa|ec|ecies|elgamal)$/i.test(alg)) return /^nopadding$/i.test(padding ?? "") ? `${t} is RSA without padding` : undefined;
  if (mode === undefined) return /^aes$/i.test(alg) ? `"${t}" defaults to the ECB mode` : undefined;
  return /^ecb$/i.test(mode) ? `${t} uses the ECB mode` : undefined;
}

const PREFIX: Record<string, string> = { java: "java", python: "py", javascript: "js" };

/**
 * The weak-algorithm use at a call, if it is a crypto factory whose algorithm argument is not a
 * literal and resolves to a weak constant. `fromOf` names where parts of a built value came from.
 */
export function algorithmUse(
  language: string,
  file: string,
  e: Extract<Expr, { k: "call" }>,
  args: readonly Value[],
  kwargs: ReadonlyMap<string, Value>,
  fromOf: (e: Expr) => string | undefined,
): AlgorithmUse | undefined {
  if (!e.path) return undefined;
  const factory = FACTORIES[language]?.find((f) => f.path.test(e.path!));
  if (!factory) return undefined;
  const kwExpr = factory.kw ? e.kwargs?.[factory.kw] : undefined;
  const expr = e.args[factory.arg] ?? kwExpr;
  const value = e.args[factory.arg] ? args[factory.arg] : factory.kw ? kwargs.get(factory.kw) : undefined;
  // A literal is the pattern rules' to judge; a hash declared not for security (Python's `usedforsecurity=False`) is not weak.
  if (!expr || expr.k === "const" || typeof value?.konst?.v !== "string") return undefined;
  if (language === "python" && kwargs.get("usedforsecurity")?.konst?.v === false) return undefined;
  const algorithm = value.konst.v;
  const why = weakness(factory.kind, algorithm, language);
  if (!why) return undefined;
  const from = value.konst.from ?? fromOf(expr);
  const hash = factory.kind === "hash" || factory.kind === "mac" || factory.kind === "signature";
  const where = from ? `read from ${from}` : "resolved from constants in the code";
  return {
    rule_id: `${PREFIX[language] ?? language}-weak-${hash ? "hash" : "cipher"}-resolved`,
    cwe_id: hash ? "CWE-328" : "CWE-327",
    title: hash ? "Weak hash algorithm (resolved value)" : "Weak cipher algorithm (resolved value)",
    message: `The algorithm of \`${e.path}\` is "${algorithm}", ${where}: ${why}.`,
    remediation: hash
      ? "Use SHA-256 or stronger (and a password hash such as Argon2, bcrypt or PBKDF2 for passwords); change the configured value and its default."
      : "Use AES in an authenticated mode (AES/GCM/NoPadding) or ChaCha20-Poly1305; change the configured value and its default.",
    file,
    loc: e.loc,
    algorithm,
    ...(from ? { from } : {}),
  };
}
