/**
 * The layering rules, checked by `npm run lint` (the `lint:layers` script) over the
 * workspaces' code. Paths are relative to the folder depcruise runs in: test/architecture
 * runs this same file on a fixture tree to prove each rule fires.
 *
 * Workspace names (@ax/*) resolve through their node_modules symlinks to the real folders
 * (apps/<name>/src, packages/<name>/src), so an import by name is judged like a relative one.
 * Type-only imports count: a cycle through types still ties two modules together.
 */
const APPS = "^apps/([^/]+)/";
const TEST_SUPPORT = ["^(apps|packages)/[^/]+/test/", "^test/", "^packages/testkit/"];

module.exports = {
  forbidden: [
    {
      name: "no-app-to-app",
      severity: "error",
      comment: "An app is a main: it stands on packages and never on another app. Move what both need into a package.",
      from: { path: APPS },
      to: { path: "^apps/", pathNot: "^apps/$1/" },
    },
    {
      name: "no-package-to-app",
      severity: "error",
      comment: "Packages are what apps are made of; a package importing an app turns the layering upside down.",
      from: { path: "^packages/" },
      to: { path: "^apps/" },
    },
    {
      name: "no-circular",
      severity: "error",
      comment: "Import cycles (production and test code alike): split the shared part into a module both import.",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-test-support-in-production",
      severity: "error",
      comment: "Production code (src/, not *.test.ts) must not import test support: a test/ folder or @ax/testkit.",
      from: { path: "^(apps|packages)/[^/]+/src/", pathNot: ["\\.test\\.ts$", "^packages/testkit/"] },
      to: { path: TEST_SUPPORT },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: {
      path: [
        "(^|/)node_modules/",
        "(^|/)fixtures/",
        "(^|/)dist/",
        "(^|/)coverage/",
        "^packages/rules/rule-tests/",
        "^bench/detection/taint-cases/",
        "^bench/detection/apps/",
        "^bench/detection/apps-held/",
      ],
    },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
      mainFields: ["main", "types"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".json"],
    },
    reporterOptions: { text: { highlightFocused: false } },
  },
};
