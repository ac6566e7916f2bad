/**
 * Mutations for the API fuzzer (fuzz.test.ts): each makes a valid case (fuzz-support.ts
 * validCase) invalid in one dimension, with the statuses that answer may have. No I/O.
 */
import fc from "fast-check";
import {
  NASTY,
  Ref,
  isIdName,
  text,
  validCase,
  wellFormed,
  type FuzzCase,
  type Hints,
  type JsonSchema,
  type Operation,
  type Role,
  type Val,
} from "./fuzz-support";

interface Mutation {
  kind: string;
  apply: (c: FuzzCase) => FuzzCase;
}

const mutation = <T>(kind: string, arb: fc.Arbitrary<T>, apply: (c: FuzzCase, v: T) => FuzzCase): fc.Arbitrary<Mutation> =>
  arb.map((v) => ({ kind, apply: (c: FuzzCase) => ({ ...apply(c, v), kind }) }));

/** Looks like a personal access token ("axk_" + 46 base62); the checksum is almost never right. */
export const secretArb = fc.stringMatching(/^axk_[0-9A-Za-z]{46}$/);
const printable = (min: number, max: number) => fc.string({ unit: "grapheme-ascii", minLength: min, maxLength: max });

/** Values of the wrong type for a field whose schema is `s`. */
function wrongTyped(s: JsonSchema): fc.Arbitrary<unknown> {
  const any: unknown[] = [null, {}, [], [1, 2], { nested: { deeper: true } }];
  if (s.type === "string" || (s.enum && typeof s.enum[0] === "string")) return fc.constantFrom(0, -1, 1.5, true, false, 1e21, ...any);
  if (s.type === "integer") return fc.constantFrom("5", "", 1.5, -0.5, true, 1e21, ...any);
  if (s.type === "number") return fc.constantFrom("0.5", "", true, ...any);
  if (s.type === "boolean") return fc.constantFrom("true", "false", 0, 1, ...any);
  return fc.constantFrom(42, "x", true, null);
}

const MALFORMED_JSON = [
  "{",
  '{"a":',
  "{'a':1}",
  "[1,]",
  '{"a":1}}',
  "NaN",
  "undefined",
  '{"a":1,}',
  "\u0000",
  '{"a":"\\x41"}',
  '{"a":"\n"}',
  "[",
  '"\\ud800"',
];
const WRONG_CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "text/json",
  "application/json-patch+json",
  "application/vnd.api+json",
  "application/octet-stream",
];
const ACCEPTS = [
  "application/json",
  "text/markdown",
  "text/x-diff",
  "text/html",
  "*/*",
  "application/xml",
  "garbage;;q=x",
  "text/*;q=0.1, application/json;q=0",
];

/** 1.1 MB: more than MAX_BODY_BYTES (1 MiB by default). */
const OVERSIZED = "x".repeat(1_100_000);

type Mutations = fc.Arbitrary<Mutation>[];
const withExpect = (c: FuzzCase, expect: number[] | undefined): FuzzCase => (expect ? { ...c, expect } : c);

/** Credentials: none, garbage, known bad ones, in the wrong place, or a role below the route's. */
function authMutations(op: Operation): Mutations {
  const m: Mutations = [];
  const needsToken = !op.isPublic;
  const token401 = needsToken ? [401] : undefined;
  m.push(mutation("auth:none", fc.constant(null), (c) => withExpect({ ...c, auth: { kind: "none" } }, token401)));
  m.push(
    mutation(
      "auth:garbage",
      fc.oneof(
        secretArb,
        printable(16, 80).filter((s) => s.trim() === s),
      ),
      (c, value) => withExpect({ ...c, auth: { kind: "garbage", value }, secrets: [...c.secrets, value] }, token401),
    ),
  );
  m.push(
    mutation(
      "auth:known-bad",
      fc.constantFrom("expired", "revoked", "unknown") as fc.Arbitrary<"expired" | "revoked" | "unknown">,
      (c, which) => withExpect({ ...c, auth: { kind: "known-bad", which } }, token401),
    ),
  );
  m.push(mutation("auth:in-query", fc.constant(null), (c) => withExpect({ ...c, auth: { kind: "in-query" } }, token401)));
  if (needsToken)
    m.push(
      mutation("auth:role", fc.constantFrom<Role>("viewer", "member", "other"), (c, role) => ({ ...c, auth: { kind: "role", role } })),
    );

  return m;
}

/** Path parameters: not an id, too long, a secret, an object of the other tenant. */
function pathMutations(op: Operation): Mutations {
  const m: Mutations = [];
  if (op.params.length) {
    const name = fc.constantFrom(...op.params.map((p) => p.name));
    const notId = fc
      .oneof(
        text(1, 60),
        fc.uuid().map((u) => u.toUpperCase()),
        fc.uuid().map((u) => `${u} `),
        fc.constantFrom(
          "0",
          "-1",
          "null",
          "undefined",
          "NaN",
          "%00",
          "' OR '1'='1",
          "00000000-0000-0000-0000-000000000000",
          "axk_",
          "1e309",
        ),
      )
      .map(wellFormed)
      .filter((v) => v.length > 0 && v !== "." && v !== "..");
    m.push(mutation("path:not-an-id", fc.tuple(name, notId), (c, [n, v]) => ({ ...c, params: { ...c.params, [n]: v } })));
    m.push(
      mutation("path:overlong", fc.tuple(name, fc.integer({ min: 201, max: 600 })), (c, [n, len]) =>
        withExpect({ ...c, params: { ...c.params, [n]: "a".repeat(len) } }, [400]),
      ),
    );
    m.push(
      mutation("path:secret", fc.tuple(name, secretArb), (c, [n, v]) => ({
        ...c,
        params: { ...c.params, [n]: v },
        secrets: [...c.secrets, v],
      })),
    );
    const idParams = op.params.map((p) => p.name).filter(isIdName);
    if (idParams.length) {
      m.push(
        mutation("path:other-tenant", fc.constantFrom(...idParams), (c, n) => ({
          ...c,
          params: { ...c.params, [n]: new Ref("other", n) },
        })),
      );
    }
  }

  return m;
}

/** Query strings: junk values, repeats, nesting, prototype keys, secrets. */
function queryMutations(op: Operation): Mutations {
  const m: Mutations = [];
  const queryNames = op.query.map((p) => p.name);
  const junk = fc.oneof(
    fc.constantFrom("", "-1", "0", "1e309", "NaN", "Infinity", "true", "[object Object]", "0x10", "1,2,3", " ", "%"),
    text(0, 40).map(wellFormed),
    fc.integer({ min: 2001, max: 6000 }).map((n) => "q".repeat(n)),
  );
  const anyName = queryNames.length ? fc.oneof(fc.constantFrom(...queryNames), printable(1, 12)) : printable(1, 12);
  m.push(mutation("query:junk", fc.tuple(anyName, junk), (c, [k, v]) => ({ ...c, query: [...c.query.filter(([q]) => q !== k), [k, v]] })));
  m.push(
    mutation("query:repeated", fc.tuple(anyName, fc.array(printable(0, 10), { minLength: 2, maxLength: 30 })), (c, [k, vs]) => ({
      ...c,
      query: [...c.query.filter(([q]) => q !== k), ...vs.map((v): [string, Val] => [k, v])],
    })),
  );
  m.push(
    mutation(
      "query:nested",
      fc.tuple(anyName, fc.constantFrom("[a]", "[]", "[0][1]", "[__proto__]", "[a][b][c][d][e][f][g]", "[length]"), printable(0, 10)),
      (c, [k, suffix, v]) => ({
        ...c,
        query: [...c.query.filter(([q]) => q !== k), [`${k}${suffix}`, v]],
      }),
    ),
  );
  m.push(
    mutation(
      "query:prototype",
      fc.constantFrom("__proto__[polluted]", "constructor[prototype][polluted]", "__proto__", "hasOwnProperty", "toString"),
      (c, k) => ({ ...c, query: [...c.query, [k, "1"]] }),
    ),
  );
  if (queryNames.length)
    m.push(
      mutation("query:secret", fc.tuple(fc.constantFrom(...queryNames), secretArb), (c, [k, v]) => ({
        ...c,
        query: [...c.query.filter(([q]) => q !== k), [k, v]],
        secrets: [...c.secrets, v],
      })),
    );

  return m;
}

/** Headers: Accept, X-Request-Id and the route's own. */
function headerMutations(op: Operation): Mutations {
  const m: Mutations = [];
  m.push(mutation("header:accept", fc.constantFrom(...ACCEPTS), (c, v) => ({ ...c, headers: { ...c.headers, Accept: v } })));
  m.push(mutation("header:request-id", printable(0, 300), (c, v) => ({ ...c, headers: { ...c.headers, "X-Request-Id": v } })));
  for (const h of op.headers)
    m.push(
      mutation(`header:${h.name.toLowerCase()}`, fc.oneof(printable(0, 300), secretArb), (c, v) => ({
        ...c,
        headers: { ...c.headers, [h.name]: v },
      })),
    );

  return m;
}

/** The JSON body's fields: wrong types, missing or extra fields, prototype keys, long or nasty strings. */
function bodyFieldMutations(op: Operation): Mutations {
  const m: Mutations = [];
  const body = op.body;
  if (body) {
    const json = (c: FuzzCase) => (c.body?.kind === "json" ? (c.body.value as Record<string, unknown>) : {});
    const setField = (c: FuzzCase, k: string, v: unknown): FuzzCase => ({ ...c, body: { kind: "json", value: { ...json(c), [k]: v } } });
    const props = Object.entries(body.properties ?? {});
    const strings = props.filter(([, s]) => s.type === "string").map(([k]) => k);
    m.push(
      mutation("body:not-an-object", fc.constantFrom<unknown>([], [{}], 1, "text", null, true, 0), (c, value) =>
        withExpect({ ...c, body: { kind: "json", value } }, [400]),
      ),
    );
    m.push(
      mutation(
        "body:wrong-type",
        fc.constantFrom(...props).chain(([k, s]) => wrongTyped(s).map((v) => [k, v] as const)),
        (c, [k, v]) => withExpect(setField(c, k, v), [400]),
      ),
    );
    if (body.required?.length) {
      m.push(
        mutation("body:missing-required", fc.constantFrom(...body.required), (c, k) => {
          const { [k]: _dropped, ...rest } = json(c);
          return withExpect({ ...c, body: { kind: "json", value: rest } }, [400]);
        }),
      );
    }
    const known = new Set(props.map(([k]) => k));
    m.push(
      mutation(
        "body:extra-field",
        fc.tuple(
          printable(1, 20).filter((k) => !known.has(k)),
          fc.jsonValue({ maxDepth: 2 }),
        ),
        (c, [k, v]) => withExpect(setField(c, k, v), [400]),
      ),
    );
    m.push(
      mutation("body:prototype-keys", fc.constantFrom("__proto__", "constructor", "prototype"), (c, k) => {
        const raw = JSON.stringify(json(c)).replace(
          /^\{/,
          `{"${k}":{"polluted":true,"isAdmin":true}${Object.keys(json(c)).length ? "," : ""}`,
        );
        return withExpect({ ...c, body: { kind: "raw", data: raw, contentType: "application/json" } }, [400]);
      }),
    );
    if (strings.length) {
      const str = fc.constantFrom(...strings);
      const overMax = (k: string) => (body.properties?.[k]?.maxLength ?? 20_000) + 1;
      m.push(
        mutation("body:too-long", fc.tuple(str, fc.integer({ min: 0, max: 50 })), (c, [k, extra]) =>
          setField(c, k, "z".repeat(overMax(k) + extra)),
        ),
      );
      m.push(
        mutation(
          "body:control-chars",
          fc.tuple(str, fc.oneof(fc.string({ unit: "binary-ascii", minLength: 1, maxLength: 30 }), fc.constantFrom(...NASTY))),
          (c, [k, v]) => setField(c, k, v),
        ),
      );
      m.push(mutation("body:secret", fc.tuple(str, secretArb), (c, [k, v]) => ({ ...setField(c, k, v), secrets: [...c.secrets, v] })));
      m.push(mutation("body:oversized", str, (c, k) => withExpect(setField(c, k, OVERSIZED), [413])));
    }
  }
  return m;
}

/** The body as bytes: malformed JSON, encodings, content types, charsets, a body where none belongs. */
function rawBodyMutations(op: Operation): Mutations {
  const m: Mutations = [];
  const body = op.body;
  const jsonText = (c: FuzzCase) => (c.body?.kind === "json" ? JSON.stringify(c.body.value) : '{"unexpected":true}');
  m.push(
    mutation("body:malformed-json", fc.oneof(fc.constantFrom(...MALFORMED_JSON), fc.nat()), (c, v) => {
      const full = jsonText(c);
      const data = typeof v === "string" ? v : full.slice(0, 1 + (v % Math.max(1, full.length - 1)));
      return withExpect({ ...c, body: { kind: "raw", data, contentType: "application/json" } }, [400]);
    }),
  );
  m.push(
    mutation("body:content-encoding", fc.constantFrom("gzip", "deflate", "br", "x-unknown", "gzip, gzip"), (c, enc) =>
      withExpect(
        {
          ...c,
          headers: { ...c.headers, "Content-Encoding": enc },
          body: { kind: "raw", data: jsonText(c), contentType: "application/json" },
        },
        [400, 415],
      ),
    ),
  );
  m.push(
    mutation("body:random-bytes", fc.uint8Array({ minLength: 1, maxLength: 64 }), (c, bytes) => ({
      ...c,
      body: { kind: "raw", data: Buffer.from(bytes), contentType: "application/json" },
    })),
  );
  m.push(
    mutation("body:wrong-content-type", fc.constantFrom(...WRONG_CONTENT_TYPES), (c, contentType) =>
      withExpect({ ...c, body: { kind: "raw", data: jsonText(c), contentType } }, [415]),
    ),
  );
  m.push(
    mutation("body:charset", fc.constantFrom("latin1", "utf-16", "koi8-r", "nope"), (c, cs) =>
      withExpect({ ...c, body: { kind: "raw", data: jsonText(c), contentType: `application/json; charset=${cs}` } }, [400, 415]),
    ),
  );
  // Accepted today (body-parser takes any "utf-*"); fuzz.test.ts has the one test that says it should not be.
  m.push(
    mutation("body:charset-utf-7", fc.constant("utf-7"), (c, cs) => ({
      ...c,
      body: { kind: "raw", data: jsonText(c), contentType: `application/json; charset=${cs}` },
    })),
  );
  if (body) {
    m.push(
      mutation("body:missing", fc.constant(null), (c) => {
        const { body: _omitted, ...rest } = c;
        return withExpect(rest, [400]);
      }),
    );
  } else {
    m.push(
      mutation(
        "body:unexpected-json",
        fc.jsonValue({ maxDepth: 2 }).filter((v) => typeof v === "object" && v !== null),
        (c, value) => ({ ...c, body: { kind: "json", value } }),
      ),
    );
  }
  return m;
}

/** A valid case with one dimension made invalid. */
export function invalidCase(op: Operation, hints: Hints): fc.Arbitrary<FuzzCase> {
  const m = [
    ...authMutations(op),
    ...pathMutations(op),
    ...queryMutations(op),
    ...headerMutations(op),
    ...bodyFieldMutations(op),
    ...rawBodyMutations(op),
  ];
  return fc.tuple(validCase(op, hints), fc.oneof(...m)).map(([c, mut]) => mut.apply(c));
}
