// Closures and callbacks see the enclosing function's variables, bound where the closure is
// created: Python inner `def` and `lambda`, JavaScript arrows and function expressions handed
// to fs.readFile, forEach, .then and event handlers, and inner function declarations.
import { lowerJavaScript } from "./javascript";
import { lowerPython } from "./python";
import { moduleTwins } from "../test/module-twins";

/** A Python function whose local `cmd` is tainted (vuln) or constant (safe), used by `inner`. */
function py(inner: string): { vuln: Record<string, string>; safe: Record<string, string> } {
  const body = (init: string, marker: string) => `
    import os
    import threading
    from flask import request

    def view():
        cmd = ${init}
${inner.replace("#MARK", marker)}
  `;
  return { vuln: { "app.py": body('request.args.get("c")', "# SINK") }, safe: { "app.py": body('"ls -l"', "") } };
}

/** The same for JavaScript: `cmd` from the request or a constant. */
function js(inner: string): { vuln: Record<string, string>; safe: Record<string, string> } {
  const body = (init: string, marker: string) => `
    const fs = require("fs");
    const { exec } = require("child_process");

    function view(req, res, items, emitter, fetchIt) {
      const cmd = ${init};
${inner.replace("//MARK", marker)}
    }
    module.exports = { view };
  `;
  return { vuln: { "app.js": body("req.query.c", "// SINK") }, safe: { "app.js": body('"ls -l"', "") } };
}

moduleTwins("python closures capture the enclosing function's locals", [
  { name: "inner def called directly", cwe: "CWE-78", ...py("        def inner():\n            os.system(cmd)  #MARK\n        inner()") },
  {
    name: "inner def handed to a thread",
    cwe: "CWE-78",
    ...py("        def work():\n            os.system(cmd)  #MARK\n        threading.Thread(target=work).start()"),
  },
  { name: "lambda called later", cwe: "CWE-78", ...py("        later = lambda: os.system(cmd)  #MARK\n        later()") },
  { name: "lambda as a callback", cwe: "CWE-78", ...py("        schedule(lambda: os.system(cmd))  #MARK") },
  {
    name: "two levels of nesting",
    cwe: "CWE-78",
    ...py("        def outer():\n            def inner():\n                os.system(cmd)  #MARK\n            inner()\n        outer()"),
  },
]);

moduleTwins("javascript closures capture the enclosing function's locals", [
  {
    name: "callback to fs.readFile",
    cwe: "CWE-78",
    ...js('      fs.readFile("/tmp/x", (err, data) => {\n        exec(cmd); //MARK\n      });'),
  },
  { name: "forEach arrow", cwe: "CWE-78", ...js("      items.forEach((it) => exec(cmd + it.id)); //MARK") },
  { name: ".then callback", cwe: "CWE-78", ...js("      fetchIt().then(function () {\n        exec(cmd); //MARK\n      });") },
  { name: "event handler", cwe: "CWE-78", ...js('      emitter.on("data", () => {\n        exec(cmd); //MARK\n      });') },
  { name: "inner function declaration", cwe: "CWE-78", ...js("      function go() {\n        exec(cmd); //MARK\n      }\n      go();") },
  {
    name: "arrow inside an arrow",
    cwe: "CWE-78",
    ...js('      emitter.on("a", () => {\n        emitter.on("b", () => {\n          exec(cmd); //MARK\n        });\n      });'),
  },
]);

moduleTwins("closures capture a parameter the callers fill in", [
  {
    name: "python: a helper starting a thread on an inner def, called with request input",
    cwe: "CWE-78",
    vuln: {
      "app.py":
        "import os\nimport threading\nfrom flask import request\n\ndef in_background(cmd):\n    def work():\n" +
        '        os.system(cmd)  # SINK\n    threading.Thread(target=work).start()\n\ndef view():\n    in_background(request.args.get("c"))\n',
    },
    safe: {
      "app.py":
        "import os\nimport threading\nfrom flask import request\n\ndef in_background(cmd):\n    def work():\n" +
        '        os.system(cmd)\n    threading.Thread(target=work).start()\n\ndef view():\n    request.args.get("c")\n    in_background("make clean")\n',
    },
  },
  {
    name: "javascript: a helper running a command in a promise callback, called with request input",
    cwe: "CWE-78",
    vuln: {
      "app.js":
        'const { exec } = require("child_process");\nfunction later(cmd) {\n  return Promise.resolve().then(() => {\n' +
        "    exec(cmd); // SINK\n  });\n}\nfunction view(req) {\n  return later(req.query.c);\n}\nmodule.exports = { view };\n",
    },
    safe: {
      "app.js":
        'const { exec } = require("child_process");\nfunction later(cmd) {\n  return Promise.resolve().then(() => {\n' +
        '    exec(cmd);\n  });\n}\nfunction view(req) {\n  return later("make clean");\n}\nmodule.exports = { view };\n',
    },
  },
]);

describe("captures", () => {
  it("lists the enclosing locals a closure reads, not its own nor globals", () => {
    const m = lowerPython(
      "app.py",
      "G = 1\ndef f(a):\n    b = 2\n    def g(c):\n        d = a + b + c + G\n        return d\n    return g\n",
    );
    expect(m.functions.find((f) => f.name === "g")?.captures).toEqual(["a", "b"]);
    expect(m.functions.find((f) => f.name === "f")?.captures).toBeUndefined();
  });

  it("passes a name through a function between the closure and its owner", () => {
    const m = lowerJavaScript("a.js", "function f(x) {\n  return () => () => x;\n}\n", "javascript");
    const lambdas = m.functions.filter((f) => f.name.startsWith("<lambda"));
    expect(lambdas.map((f) => f.captures)).toEqual([["x"], ["x"]]);
  });
});
