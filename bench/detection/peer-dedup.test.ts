import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeDir, tmpDir } from "@ax/testkit/temp";
import { codeTokens, familyOf, jaccard, nearDuplicates, shingles } from "./peer-dedup";

const SERVICE = `
package a;
// a comment that differs
public class Users {
  void find(java.sql.Statement stmt, String name) throws Exception {
    stmt.executeQuery("select * from users where name = '" + name + "'");
    System.out.println("done");
  }
}
`;

describe("near-duplicates across the peer split", () => {
  it("ignores comments and string contents, keeps identifiers", () => {
    expect(codeTokens('x = "a" // note\n', "jvm")).toEqual(["x", "=", '"', '"']);
    expect(codeTokens("x = 'a'  # note\n", "python")).toEqual(["x", "=", '"', '"']);
    const a = shingles(codeTokens(SERVICE, "jvm"));
    const renamedComment = shingles(codeTokens(SERVICE.replace("a comment that differs", "another note"), "jvm"));
    expect(jaccard(a, renamedComment)).toBe(1);
    const other = shingles(codeTokens("public class Orders { int total() { return 1 + 2; } }", "jvm"));
    expect(jaccard(a, other)).toBeLessThan(0.2);
    expect(familyOf("x/Y.kt")).toBe(familyOf("x/Y.java"));
    expect(familyOf("x/y.py")).not.toBe(familyOf("x/y.js"));
  });

  it("finds the held-out files that nearly copy a development file of the same family", async () => {
    const root = tmpDir("ax-peer-dedup-");
    try {
      mkdirSync(join(root, "dev"), { recursive: true });
      mkdirSync(join(root, "held"), { recursive: true });
      writeFileSync(join(root, "dev/Users.java"), SERVICE);
      writeFileSync(join(root, "held/Copy.java"), SERVICE.replace("done", "finished"));
      writeFileSync(join(root, "held/Other.java"), "public class Orders { int total() { return 1 + 2; } }\n");
      writeFileSync(join(root, "held/copy.py"), SERVICE);
      const dups = await nearDuplicates(root, ["held/Copy.java", "held/Other.java", "held/copy.py"], ["dev/Users.java"]);
      expect([...dups]).toEqual(["held/Copy.java"]);
    } finally {
      removeDir(root);
    }
  });
});
