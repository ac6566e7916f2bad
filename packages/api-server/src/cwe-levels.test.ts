import { describe, expect, it } from "@jest/globals";
import { getCwe } from "@ax/ai";
import { cweParents } from "@ax/rules";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

// The parents table the API and SARIF use (packages/rules/cwe-parents.json) is generated from the
// catalogue the assistant reads; this checks that they still agree after a cwe-sdk upgrade.
describe("the CWE parents table", () => {
  it("agrees with MITRE's catalogue for every weakness", async () => {
    const file = createRequire(import.meta.url).resolve("cwe-sdk/raw/cwe-dictionary.json");
    const ids = Object.keys(JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>);
    expect(ids.length).toBeGreaterThan(900);
    const differing: string[] = [];
    for (const id of ids) {
      const entry = await getCwe(id);
      if (entry && JSON.stringify(entry.parents) !== JSON.stringify(cweParents(entry.id))) differing.push(entry.id);
    }
    expect(differing).toEqual([]);
  });
});
