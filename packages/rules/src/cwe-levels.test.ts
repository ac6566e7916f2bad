import { describe, expect, it } from "@jest/globals";
import { cweLevels, cweParents, cweWithChildren } from "./cwe-levels";

describe("CWE levels", () => {
  it("names a weakness with its direct parents in MITRE's research view", () => {
    expect(cweLevels("CWE-95")).toEqual(["CWE-95", "CWE-94"]);
    expect(cweLevels("CWE-338")).toEqual(["CWE-338", "CWE-330"]);
    expect(cweLevels("cwe-328")).toEqual(["CWE-328", "CWE-326", "CWE-327"]);
    expect(cweParents("CWE-89")).toEqual(["CWE-943"]);
  });

  it("keeps an id it does not know, and has nothing without a CWE", () => {
    expect(cweLevels("CWE-9999999")).toEqual(["CWE-9999999"]);
    expect(cweLevels(null)).toEqual([]);
    expect(cweLevels("")).toEqual([]);
    expect(cweParents("not a cwe")).toEqual([]);
  });

  it("widens a filter on a class to its specific children, and not to its parents", () => {
    const byCodeInjection = cweWithChildren(["CWE-94"]);
    expect(byCodeInjection).toEqual(expect.arrayContaining(["CWE-94", "CWE-95"]));
    expect(byCodeInjection).not.toContain("CWE-74");
    expect(cweWithChildren(["CWE-330"])).toContain("CWE-338");
    // A leaf stays itself; every id appears once.
    expect(cweWithChildren(["CWE-95", "cwe-95"])).toEqual(["CWE-95"]);
  });
});
