import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAppLabels, runApps, type AppResult } from "./apps-suite";

describe("labelled applications", () => {
  it("reads labels as an array or under `labels`, and names a malformed entry", () => {
    const entry = { file: "app.py", line: 3, cwe: "CWE-78", label: "vulnerable" };
    expect(parseAppLabels("a", JSON.stringify([entry]))).toEqual([
      expect.objectContaining({ file: "app.py", line: 3, cwes: [78], vulnerable: true }),
    ]);
    expect(parseAppLabels("a", JSON.stringify({ labels: [{ ...entry, cwe: ["CWE-79"], label: "safe" }] }))[0]).toEqual(
      expect.objectContaining({ cwes: [79], vulnerable: false }),
    );
    expect(() => parseAppLabels("a", JSON.stringify([entry, { file: "app.py", cwe: "CWE-78", label: "vulnerable" }]))).toThrow(
      /entry 1: needs file, line/,
    );
    expect(() => parseAppLabels("a", JSON.stringify({ nothing: 1 }))).toThrow(/expected an array of labels/);
  });

  describe("a scanned app", () => {
    let scratch: string;
    let result: AppResult;
    beforeAll(async () => {
      scratch = await mkdtemp(join(tmpdir(), "ax-apps-"));
      const app = join(scratch, "src", "mini");
      await mkdir(app, { recursive: true });
      await writeFile(
        join(app, "app.py"),
        [
          "import os",
          "from flask import Flask, request",
          "from markupsafe import escape",
          "app = Flask(__name__)",
          "@app.route('/run')",
          "def run():",
          "    os.system('ping -c 1 ' + request.args['host'])",
          "    return '<p>' + escape(request.args['host']) + '</p>'",
          "",
        ].join("\n"),
      );
      const labels = [
        { file: "app.py", line: 7, cwe: "CWE-78", label: "vulnerable" },
        { file: "app.py", line: 8, cwe: "CWE-79", label: "safe" },
      ];
      await writeFile(join(app, "labels.json"), JSON.stringify(labels));
      const results = await runApps({ scratch: join(scratch, "work"), log: () => undefined, dir: join(scratch, "src") });
      expect(results).toHaveLength(1);
      result = results[0]!;
    }, 120_000);
    afterAll(() => rm(scratch, { recursive: true, force: true }));

    it("finds the vulnerable line, keeps the safe twin silent and does not score the label file", () => {
      expect(result.app).toBe("mini");
      expect(result.counts).toEqual(expect.objectContaining({ vulnerable: 1, found: 1, safe: 1, falseAlarms: 0 }));
      expect(result.missed).toEqual([]);
      expect(result.unlabelled.some((u) => u.startsWith("labels.json"))).toBe(false);
    });
  });
});
