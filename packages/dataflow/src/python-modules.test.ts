// Python module resolution: a call through an import reaches that module's function (by path),
// a library import reaches no repository function, and rules match through local aliases.
import { moduleTwins, type Files } from "../test/module-twins";

/** Two modules define `f`: one quotes its argument for the shell, one passes it through. */
const LIBS: Files = {
  "pkg/__init__.py": "",
  "pkg/clean.py": `
    import shlex
    def f(x):
        return shlex.quote(x)
  `,
  "pkg/raw.py": `
    def f(x):
        return x
  `,
};

/** A Flask view running `os.system` on the request parameter after `call` (with `imports` above it). */
function view(imports: string, call: string, file = "app.py"): Files {
  return {
    ...LIBS,
    [file]: `
      import os
      from flask import request
      ${imports}

      def run():
          cmd = ${call}
          os.system(cmd)  # SINK
    `,
  };
}

moduleTwins("python imports resolve to the imported module's function", [
  {
    name: "from pkg.m import f",
    cwe: "CWE-78",
    vuln: view("from pkg.raw import f", 'f(request.args.get("c"))'),
    safe: view("from pkg.clean import f", 'f(request.args.get("c"))'),
  },
  {
    name: "import pkg.m as m",
    cwe: "CWE-78",
    vuln: view("import pkg.raw as m", 'm.f(request.args.get("c"))'),
    safe: view("import pkg.clean as m", 'm.f(request.args.get("c"))'),
  },
  {
    name: "import pkg.m (the dotted path)",
    cwe: "CWE-78",
    vuln: view("import pkg.raw", 'pkg.raw.f(request.args.get("c"))'),
    safe: view("import pkg.clean", 'pkg.clean.f(request.args.get("c"))'),
  },
  {
    name: "from . import m (relative, inside the package)",
    cwe: "CWE-78",
    vuln: view("from . import raw as m", 'm.f(request.args.get("c"))', "pkg/views.py"),
    safe: view("from . import clean as m", 'm.f(request.args.get("c"))', "pkg/views.py"),
  },
  {
    name: "from .m import f (relative)",
    cwe: "CWE-78",
    vuln: view("from .raw import f", 'f(request.args.get("c"))', "pkg/views.py"),
    safe: view("from .clean import f", 'f(request.args.get("c"))', "pkg/views.py"),
  },
  {
    name: "from ..m import f (two levels up) under a source folder",
    cwe: "CWE-78",
    vuln: {
      "src/pkg/raw.py": "def f(x):\n    return x\n",
      "src/pkg/clean.py": "import shlex\ndef f(x):\n    return shlex.quote(x)\n",
      "src/pkg/web/views.py":
        'import os\nfrom flask import request\nfrom ..raw import f\n\ndef run():\n    os.system(f(request.args.get("c")))  # SINK\n',
    },
    safe: {
      "src/pkg/raw.py": "def f(x):\n    return x\n",
      "src/pkg/clean.py": "import shlex\ndef f(x):\n    return shlex.quote(x)\n",
      "src/pkg/web/views.py":
        'import os\nfrom flask import request\nfrom ..clean import f\n\ndef run():\n    os.system(f(request.args.get("c")))\n',
    },
  },
  {
    name: "from app.m import f, the package in a folder beside the importer's",
    cwe: "CWE-78",
    vuln: {
      "backend/app/raw.py": "def f(x):\n    return x\n",
      "backend/app/clean.py": "import shlex\ndef f(x):\n    return shlex.quote(x)\n",
      "scripts/run.py":
        'import os\nfrom flask import request\nfrom app.raw import f\n\ndef run():\n    os.system(f(request.args.get("c")))  # SINK\n',
    },
    safe: {
      "backend/app/raw.py": "def f(x):\n    return x\n",
      "backend/app/clean.py": "import shlex\ndef f(x):\n    return shlex.quote(x)\n",
      "scripts/run.py":
        'import os\nfrom flask import request\nfrom app.clean import f\n\ndef run():\n    os.system(f(request.args.get("c")))\n',
    },
  },
  {
    name: "a package's __init__ re-exporting the function",
    cwe: "CWE-78",
    vuln: { ...view("from pkg import f", 'f(request.args.get("c"))'), "pkg/__init__.py": "from .raw import f\n" },
    safe: { ...view("from pkg import f", 'f(request.args.get("c"))'), "pkg/__init__.py": "from .clean import f\n" },
  },
]);

moduleTwins("python library imports reach no repository function", [
  {
    name: "a library `render` and an app `render` that runs a command",
    cwe: "CWE-78",
    vuln: {
      "helpers.py": "import os\ndef render(x):\n    os.system(x)  # SINK\n",
      "app.py": 'from flask import request\nfrom helpers import render\n\ndef view():\n    render(request.args.get("t"))\n',
    },
    safe: {
      "helpers.py": "import os\ndef render(x):\n    os.system(x)\n",
      "app.py": 'from flask import request\nfrom chameleon_like import render\n\ndef view():\n    render(request.args.get("t"))\n',
    },
  },
  {
    name: "a method call on a library module object",
    cwe: "CWE-78",
    vuln: {
      "store.py": "import os\nclass Store:\n    def put(self, x):\n        os.system(x)  # SINK\n",
      "app.py": 'from flask import request\nfrom store import Store\n\ndef view():\n    Store().put(request.args.get("t"))\n',
    },
    safe: {
      "store.py": "import os\nclass Store:\n    def put(self, x):\n        os.system(x)\n",
      "app.py": 'from flask import request\nimport redis_like\n\ndef view():\n    redis_like.put(request.args.get("t"))\n',
    },
  },
]);

moduleTwins("python calls on an object a repository module holds", [
  {
    name: "from store import db; db.put(x)",
    cwe: "CWE-78",
    vuln: {
      "store.py": "import os\nclass Store:\n    def put(self, x):\n        os.system(x)  # SINK\n\ndb = Store()\n",
      "app.py": 'from flask import request\nfrom store import db\n\ndef view():\n    db.put(request.args.get("t"))\n',
    },
    safe: {
      "store.py": "import os\nclass Store:\n    def put(self, x):\n        os.system(x)\n\ndb = Store()\n",
      "app.py": 'from flask import request\nfrom store import db\n\ndef view():\n    db.put("ls")\n',
    },
  },
]);

moduleTwins("python rules match through local aliases", [
  {
    name: "from os import system as run; from shlex import quote as q",
    cwe: "CWE-78",
    vuln: {
      "app.py": 'from os import system as run\nfrom flask import request\n\ndef view():\n    run(request.args.get("c"))  # SINK\n',
    },
    safe: {
      "app.py":
        'from os import system as run\nfrom shlex import quote as q\nfrom flask import request\n\ndef view():\n    run(q(request.args.get("c")))\n',
    },
  },
  {
    name: "import subprocess as sp; sp.call(x, shell=True)",
    cwe: "CWE-78",
    vuln: {
      "app.py":
        'import subprocess as sp\nfrom flask import request\n\ndef view():\n    sp.call(request.args.get("c"), shell=True)  # SINK\n',
    },
    safe: {
      "app.py": 'import subprocess as sp\nfrom flask import request\n\ndef view():\n    sp.call(request.args.get("c"), shell=False)\n',
    },
  },
  {
    name: "Markup.escape after from markupsafe import Markup",
    cwe: "CWE-79",
    vuln: {
      "app.py":
        'from flask import request, make_response\n\ndef view():\n    return make_response("<p>" + request.args.get("n"))  # SINK\n',
    },
    safe: {
      "app.py":
        "from flask import request, make_response\nfrom markupsafe import Markup\n\n" +
        'def view():\n    return make_response("<p>" + Markup.escape(request.args.get("n")))\n',
    },
  },
  {
    name: "a source under an alias: from flask import request as rq",
    cwe: "CWE-78",
    vuln: { "app.py": 'import os\nfrom flask import request as rq\n\ndef view():\n    os.system(rq.args.get("c"))  # SINK\n' },
    safe: { "app.py": 'import os\nfrom flask import request as rq\n\ndef view():\n    os.system(int(rq.args.get("c")))\n' },
  },
]);
