import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HELD_APPS_DIR, parseAppLabels, runApps, withoutLines, type AppResult } from "./apps-suite";
import { appsConsoleLines, appsSection, appsSummaryLines, HELD_APPS } from "./apps-report";

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

    it("reports a held-out app by its figures only, naming no line", () => {
      const held = withoutLines({ ...result, missed: ["app.py:7 CWE-78"], falseAlarms: ["app.py:8 CWE-79"] });
      expect(held.counts).toEqual(result.counts);
      expect(held.unlabelledCount).toBe(result.unlabelled.length);
      const text = [...appsSummaryLines([held], HELD_APPS), ...appsSection([held], HELD_APPS), ...appsConsoleLines([held], HELD_APPS)].join(
        "\n",
      );
      expect(text).toContain("## Held-out labelled applications (written blind; never used for tuning)");
      expect(text).toContain("| mini | 1 | 1 | 1 | 100.0% | 1 | 0 |");
      expect(text).not.toMatch(/app\.py/);
      expect(appsSection([{ ...result, missed: ["app.py:7 CWE-78"] }]).join("\n")).toContain("missed: app.py:7 CWE-78");
    });
  });

  it("the held-out apps' labels parse and point at lines that hold code (figures only on failure)", async () => {
    const apps = (await readdir(HELD_APPS_DIR, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(apps.length).toBeGreaterThanOrEqual(4);
    let labels = 0;
    let blank = 0;
    for (const app of apps) {
      const parsed = parseAppLabels(app, await readFile(join(HELD_APPS_DIR, app, "labels.json"), "utf8"));
      labels += parsed.length;
      for (const l of parsed) {
        const text = (await readFile(join(HELD_APPS_DIR, app, l.file), "utf8")).split("\n");
        if (!(text[(l.line ?? 0) - 1] ?? "").trim()) blank++;
      }
    }
    expect(labels).toBeGreaterThan(80);
    expect(blank).toBe(0);
  });
});
