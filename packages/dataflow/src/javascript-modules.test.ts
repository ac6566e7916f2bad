// JavaScript/TypeScript module resolution: a call through `require`/`import` of a relative
// module reaches that file's function; a package import reaches no repository function; rules
// match through local aliases.
import { moduleTwins, type Files } from "../test/module-twins";

/** Two modules export `f`: one quotes its argument for the shell, one passes it through. */
const LIBS: Files = {
  "lib/clean.js": `
    const sq = require("shell-quote");
    exports.f = function (x) {
      return sq.quote([x]);
    };
  `,
  "lib/raw.js": `
    exports.f = function (x) {
      return x;
    };
  `,
  "lib/clean-def.ts": `
    import { quote } from "shell-quote";
    export default function (x: string) {
      return quote([x]);
    }
    export function g(x: string) {
      return quote([x]);
    }
  `,
  "lib/raw-def.ts": `
    export default function (x: string) {
      return x;
    }
    export function g(x: string) {
      return x;
    }
  `,
  "lib/clean-cjs/index.js": `
    const sq = require("shell-quote");
    module.exports = function f(x) {
      return sq.quote([x]);
    };
  `,
  "lib/raw-obj.js": `
    function impl(x) {
      return x;
    }
    module.exports = { f: impl };
  `,
  "lib/clean-obj.js": `
    const sq = require("shell-quote");
    function impl(x) {
      return sq.quote([x]);
    }
    module.exports = { f: impl };
  `,
  "lib/raw-cjs/index.js": `
    module.exports = function f(x) {
      return x;
    };
  `,
};

/** A handler running `exec` on the query parameter after `call` (with `imports` above it). */
function handler(imports: string, call: string, file = "app.js"): Files {
  return {
    ...LIBS,
    [file]: `
      const { exec } = require("child_process");
      ${imports}

      function run(req) {
        const cmd = ${call};
        exec(cmd); // SINK
      }
      module.exports = { run };
    `,
  };
}

const both = (imports: (m: string) => string, call: string, file?: string, raw = "raw", clean = "clean") => ({
  vuln: handler(imports(raw), call, file),
  safe: handler(imports(clean), call, file),
});

moduleTwins("javascript imports resolve to the imported module's function", [
  { name: "const m = require('./m'); m.f()", cwe: "CWE-78", ...both((m) => `const m = require("./lib/${m}");`, "m.f(req.query.c)") },
  { name: "const { f } = require('./m')", cwe: "CWE-78", ...both((m) => `const { f } = require("./lib/${m}");`, "f(req.query.c)") },
  {
    name: "const { f: h } = require('./m.js')",
    cwe: "CWE-78",
    ...both((m) => `const { f: h } = require("./lib/${m}.js");`, "h(req.query.c)"),
  },
  {
    name: "import f from './m' (default export)",
    cwe: "CWE-78",
    ...both((m) => `import f from "./lib/${m}";`, "f(req.query.c)", "app.ts", "raw-def", "clean-def"),
  },
  {
    name: "import * as m from './m'",
    cwe: "CWE-78",
    ...both((m) => `import * as m from "./lib/${m}";`, "m.g(req.query.c)", "app.ts", "raw-def", "clean-def"),
  },
  {
    name: "import { g as h } from '../lib/m'",
    cwe: "CWE-78",
    ...both((m) => `import { g as h } from "../lib/${m}";`, "h(req.query.c)", "routes/app.ts", "raw-def", "clean-def"),
  },
  {
    name: "module.exports = { f: impl }",
    cwe: "CWE-78",
    ...both((m) => `const { f } = require("./lib/${m}");`, "f(req.query.c)", "app.js", "raw-obj", "clean-obj"),
  },
  {
    name: "require('./dir') with module.exports = function",
    cwe: "CWE-78",
    ...both((m) => `const f = require("./lib/${m}");`, "f(req.query.c)", "app.js", "raw-cjs", "clean-cjs"),
  },
]);

/** A barrel `lib/index.ts` re-exporting `lib/raw-def.ts` or `lib/clean-def.ts` (`line`), imported by `app.ts`. */
function barrel(line: (m: string) => string, m: string): Files {
  return {
    ...LIBS,
    "lib/index.ts": line(m),
    "app.ts": `
      import { execSync } from "child_process";
      import { h } from "./lib";

      export function run(req: any) {
        execSync(h(req.query.c))${m === "raw-def" ? "; // SINK" : ";"}
      }
    `,
  };
}

/** A workspace package `@acme/shell` (packages/shell/src/index.ts) whose `f` is raw or clean, imported by an app. */
function workspace(body: string, marker: string): Files {
  return {
    "packages/shell/src/index.ts": body,
    "packages/shell/src/other.ts": "export function f(x: string) {\n  return x;\n}\n",
    "apps/web/src/app.ts": `import { execSync } from "child_process";\nimport { f } from "@acme/shell";\nexport function run(req: any) {\n  execSync(f(req.query.c));${marker}\n}\n`,
  };
}

moduleTwins("javascript re-exports and workspace packages", [
  {
    name: "export { g as h } from './m'",
    cwe: "CWE-78",
    vuln: barrel((m) => `export { g as h } from "./${m}";\n`, "raw-def"),
    safe: barrel((m) => `export { g as h } from "./${m}";\n`, "clean-def"),
  },
  {
    name: "export * from './m'",
    cwe: "CWE-78",
    vuln: {
      ...barrel((m) => `export * from "./${m}";\n`, "raw-def"),
      "app.ts": barrel(() => "", "raw-def")["app.ts"]!.replace("{ h }", "{ g as h }"),
    },
    safe: {
      ...barrel((m) => `export * from "./${m}";\n`, "clean-def"),
      "app.ts": barrel(() => "", "clean-def")["app.ts"]!.replace("{ h }", "{ g as h }"),
    },
  },
  {
    name: "import { f } from '@acme/shell' (a workspace package)",
    cwe: "CWE-78",
    vuln: workspace("export function f(x: string) {\n  return x;\n}\n", " // SINK"),
    safe: workspace('import { quote } from "shell-quote";\nexport function f(x: string) {\n  return quote([x]);\n}\n', ""),
  },
]);

moduleTwins("javascript exports the lowering cannot follow", [
  {
    name: "module.exports = { f: require('./impl').f }: the module's functions of that name",
    cwe: "CWE-78",
    vuln: {
      "lib/impl.js": 'const { exec } = require("child_process");\nexports.f = function (x) {\n  exec(x); // SINK\n};\n',
      "lib/index.js": 'module.exports = { f: require("./impl").f };\n',
      "app.js": 'const { f } = require("./lib");\nfunction view(req) {\n  f(req.query.c);\n}\nmodule.exports = { view };\n',
    },
    safe: {
      "lib/impl.js": 'const { exec } = require("child_process");\nexports.f = function (x) {\n  exec(x);\n};\n',
      "lib/index.js": 'module.exports = { f: require("./impl").f };\n',
      "app.js": 'const { f } = require("./lib");\nfunction view(req) {\n  f("make clean");\n}\nmodule.exports = { view };\n',
    },
  },
]);

moduleTwins("javascript package imports reach no repository function", [
  {
    name: "a package `render` and an app `render` that runs a command",
    cwe: "CWE-78",
    vuln: {
      "helpers.js": 'const { exec } = require("child_process");\nexports.render = function (x) {\n  exec(x); // SINK\n};\n',
      "app.js": 'const { render } = require("./helpers");\nfunction view(req) {\n  render(req.query.t);\n}\nmodule.exports = { view };\n',
    },
    safe: {
      "helpers.js": 'const { exec } = require("child_process");\nexports.render = function (x) {\n  exec(x);\n};\n',
      "app.js":
        'const { render } = require("templating-lib");\nfunction view(req) {\n  render(req.query.t);\n}\nmodule.exports = { view };\n',
    },
  },
]);

moduleTwins("javascript calls on an object a repository module exports", [
  {
    name: "module.exports = new Store(); store.put(x)",
    cwe: "CWE-78",
    vuln: {
      "services/store.js":
        'const { exec } = require("child_process");\nclass Store {\n  put(x) {\n    exec(x); // SINK\n  }\n}\nmodule.exports = new Store();\n',
      "app.js":
        'const store = require("./services/store");\nfunction view(req) {\n  store.put(req.query.t);\n}\nmodule.exports = { view };\n',
    },
    safe: {
      "services/store.js":
        'const { exec } = require("child_process");\nclass Store {\n  put(x) {\n    exec(x);\n  }\n}\nmodule.exports = new Store();\n',
      "app.js": 'const store = require("./services/store");\nfunction view(req) {\n  store.put("ls");\n}\nmodule.exports = { view };\n',
    },
  },
]);

moduleTwins("javascript rules match through local aliases", [
  {
    name: "const { exec: run } = require('child_process') and a shell-escape alias",
    cwe: "CWE-78",
    vuln: { "app.js": 'const { exec: run } = require("child_process");\nfunction go(req) {\n  run("ls " + req.query.d); // SINK\n}\n' },
    safe: {
      "app.js":
        'const { exec: run } = require("child_process");\nconst esc = require("shell-escape");\n' +
        'function go(req) {\n  run("ls " + esc([req.query.d]));\n}\n',
    },
  },
  {
    name: "const sani = require('mongo-sanitize'); sani(x)",
    cwe: "CWE-943",
    vuln: { "app.js": 'function go(req, db) {\n  return db.collection("users").findOne({ name: req.body.name }); // SINK\n}\n' },
    safe: {
      "app.js":
        'const sani = require("mongo-sanitize");\nfunction go(req, db) {\n  return db.collection("users").findOne({ name: sani(req.body.name) });\n}\n',
    },
  },
  {
    name: "import { execSync as sh } from 'node:child_process'",
    cwe: "CWE-78",
    vuln: {
      "app.ts": 'import { execSync as sh } from "node:child_process";\nexport function go(req: any) {\n  sh(req.query.c); // SINK\n}\n',
    },
    safe: { "app.ts": 'import { execSync as sh } from "node:child_process";\nexport function go(req: any) {\n  sh("ls -l");\n}\n' },
  },
]);
