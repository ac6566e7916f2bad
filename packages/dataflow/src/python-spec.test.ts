// PYTHON_SPEC: well-formed rules, and which rules match which calls.
import { SEVERITIES } from "@ax/contracts";
import { chainPath } from "./lower-util";
import { PYTHON_SPEC } from "./python-spec";
import type { CallPattern } from "./spec";
import { callOf } from "../test/python-lowering";

describe("PYTHON_SPEC", () => {
  const all = [...PYTHON_SPEC.sources, ...PYTHON_SPEC.sinks, ...PYTHON_SPEC.sanitizers];

  /** Rules whose call pattern matches the last call of a snippet, as the spec documents matching. */
  function matching<R extends { id: string; call?: CallPattern }>(rules: readonly R[], source: string): string[] {
    const c = callOf(source);
    const receiverText = c.receiver ? (chainPath(c.receiver) ?? (c.receiver.k === "call" ? c.receiver.text : undefined)) : undefined;
    return rules
      .filter((r) => {
        const p = r.call;
        if (!p || !p.names.includes(c.callee)) return false;
        if (p.path && !(c.path !== undefined && p.path.test(c.path))) return false;
        if (p.receiver && !(receiverText !== undefined && p.receiver.test(receiverText))) return false;
        return true;
      })
      .map((r) => r.id);
  }
  const sinks = (source: string) => matching(PYTHON_SPEC.sinks, source);
  const cweOf = (id: string) => PYTHON_SPEC.sinks.find((s) => s.id === id)?.cwe;

  it("has unique ids, one well-formed CWE per sink and complete sink texts", () => {
    expect(new Set(all.map((r) => r.id)).size).toBe(all.length);
    for (const s of PYTHON_SPEC.sinks) {
      expect(s.id).toMatch(/^py-/);
      expect(s.cwe).toMatch(/^CWE-\d+$/);
      expect(SEVERITIES).toContain(s.severity);
      expect(s.title && s.message && s.remediation).toBeTruthy();
    }
    for (const s of PYTHON_SPEC.sanitizers) if (s.cwes !== "*") for (const c of s.cwes) expect(c).toMatch(/^CWE-\d+$/);
    expect(PYTHON_SPEC.confidence).toEqual({ remote: "HIGH", local: "MEDIUM" });
  });

  it("matches command sinks through import aliases, and subprocess only with shell=True", () => {
    expect(sinks("from os import system\nsystem(cmd)").map(cweOf)).toEqual(["CWE-78"]);
    expect(sinks("import os\nos.popen(cmd)").map(cweOf)).toEqual(["CWE-78"]);
    const [sub] = sinks("import subprocess as sp\nsp.run(cmd, shell=True)");
    expect(PYTHON_SPEC.sinks.find((s) => s.id === sub)?.requireKwarg).toEqual({ name: "shell", truthy: true });
    expect(sinks("def system(x): pass\nsystem(cmd)")).toEqual([]);
  });

  it("matches code, SQL, path, deserialization, SSRF, redirect and template sinks", () => {
    expect(sinks("eval(x)").map(cweOf)).toEqual(["CWE-95"]);
    // `re.compile` is not the code sink; a pattern from input is regular-expression injection.
    expect(sinks("import re\nre.compile(x)").map(cweOf)).toEqual(["CWE-730"]);
    expect(sinks("model.eval()")).toEqual([]);
    expect(sinks("cursor.execute(q)").map(cweOf)).toEqual(["CWE-89"]);
    expect(sinks("from sqlalchemy import text\ntext(q)").map(cweOf)).toEqual(["CWE-89"]);
    expect(sinks("User.objects.raw(q)").map(cweOf)).toEqual(["CWE-89"]);
    expect(sinks("open(path)").map(cweOf)).toEqual(["CWE-22"]);
    expect(sinks("import os\nos.path.join(a, b)")).toEqual([]);
    expect(sinks("import shutil\nshutil.rmtree(p)").map(cweOf)).toEqual(["CWE-22"]);
    expect(sinks("import pickle\npickle.loads(b)").map(cweOf)).toEqual(["CWE-502"]);
    expect(sinks("import yaml\nyaml.load(s)").map(cweOf)).toEqual(["CWE-502"]);
    expect(sinks("import yaml\nyaml.safe_load(s)")).toEqual([]);
    expect(sinks("import requests\nrequests.get(url)").map(cweOf)).toEqual(["CWE-918"]);
    expect(sinks("session.get(url)")).toEqual([]);
    expect(sinks("from urllib.request import urlopen\nurlopen(url)").map(cweOf)).toEqual(["CWE-918"]);
    // Client objects are recognised by the call that made them, which the engine keeps with the value.
    const client = PYTHON_SPEC.sinks.find((s) => s.id === "py-taint-ssrf-client")?.call.receiver;
    expect(["httpx.AsyncClient(timeout=5.0)", "requests.Session()", "aiohttp.ClientSession()"].every((t) => client?.test(t))).toBe(true);
    expect(["Session()", "sessionmaker()()", "client"].some((t) => client?.test(t))).toBe(false);
    expect(sinks("from flask import redirect\nredirect(url)").map(cweOf)).toEqual(["CWE-601"]);
    expect(sinks("from django.http import HttpResponseRedirect\nHttpResponseRedirect(url)").map(cweOf)).toEqual(["CWE-601"]);
    expect(sinks("from flask import render_template_string\nrender_template_string(t)").map(cweOf)).toEqual(["CWE-1336"]);
    // The body is the XSS sink; the same call's `headers=` is the header-injection sink (args tell them apart).
    expect(sinks("from django.http import HttpResponse\nHttpResponse(body)").map(cweOf)).toEqual(["CWE-79", "CWE-113"]);
    expect(sinks("conn.search_s(base, scope, flt)").map(cweOf)).toEqual(["CWE-90"]);
    // `re.search` is not an LDAP search (its pattern is the regular-expression sink).
    expect(sinks("import re\nre.search(p, s)").map(cweOf)).toEqual(["CWE-730"]);
    expect(sinks("tree.xpath(q)").map(cweOf)).toEqual(["CWE-643"]);
  });

  it("aims path-traversal sinks at the unchecked argument of send_from_directory", () => {
    const [id] = sinks("from flask import send_from_directory\nsend_from_directory(d, name)");
    expect(PYTHON_SPEC.sinks.find((s) => s.id === id)?.args).toEqual([0, "directory"]);
  });

  it("recognises request, environment and argv sources", () => {
    const fieldSource = (path: string) => PYTHON_SPEC.sources.find((s) => s.field?.test(path));
    for (const p of [
      "request.args",
      "request.form",
      "request.GET",
      "request.POST",
      "request.COOKIES",
      "request.META",
      "request.body",
      "self.request.GET",
      "flask.request.json",
      "request.query_params",
    ]) {
      expect(fieldSource(p)?.kind).toBe("remote");
    }
    expect(fieldSource("os.environ")?.kind).toBe("local");
    expect(fieldSource("sys.argv")?.kind).toBe("local");
    expect(fieldSource("requests.args")).toBeUndefined();
    expect(fieldSource("urllib.request.urlopen")).toBeUndefined();
    expect(fieldSource("request.argsx")).toBeUndefined();
    const sources = (source: string) =>
      matching(PYTHON_SPEC.sources, source).map((id) => PYTHON_SPEC.sources.find((s) => s.id === id)?.kind);
    expect(sources("from flask import request\nrequest.args.get('q')")).toEqual(["remote"]);
    expect(sources("request.get_json()")).toEqual(["remote"]);
    expect(sources("input('> ')")).toEqual(["remote"]);
    expect(sources("import os\nos.getenv('HOME')")).toEqual(["local"]);
    expect(sources("import os\nos.environ.get('HOME')")).toEqual(["local"]);
    expect(sources("resp.json()")).toEqual([]);
  });

  it("has sanitizers for numbers, shell, HTML, file names and LDAP, and not for look-alikes", () => {
    const clean = (source: string) =>
      matching(PYTHON_SPEC.sanitizers, source).map((id) => PYTHON_SPEC.sanitizers.find((s) => s.id === id)?.cwes);
    expect(clean("int(x)")).toEqual(["*"]);
    expect(clean("import uuid\nuuid.UUID(x)")).toEqual(["*"]);
    expect(clean("import shlex\nshlex.quote(x)")).toEqual([["CWE-78"]]);
    expect(clean("import html\nhtml.escape(x)")).toEqual([["CWE-79"]]);
    expect(clean("from markupsafe import escape\nescape(x)")).toEqual([["CWE-79"]]);
    // `re.escape` quotes regex metacharacters only: clean as a pattern, not as HTML, SQL or a shell word.
    expect(clean("import re\nre.escape(x)")).toEqual([["CWE-730"]]);
    expect(clean("import os\nos.path.basename(x)")).toEqual([["CWE-22"]]);
    expect(clean("from werkzeug.utils import secure_filename\nsecure_filename(x)")).toEqual([["CWE-22"]]);
    expect(clean("from ldap.filter import escape_filter_chars\nescape_filter_chars(x)")).toEqual([["CWE-90"]]);
    const quoted = clean("from urllib.parse import quote\nquote(x)")[0];
    expect(quoted).toContain("CWE-79");
    expect(quoted).not.toContain("CWE-22");
    expect(quoted).not.toContain("CWE-601");
  });

  it("lists the container mutators", () => {
    expect(PYTHON_SPEC.mutators).toEqual(
      expect.arrayContaining(["append", "extend", "insert", "add", "update", "setdefault", "write", "put"]),
    );
  });
});
