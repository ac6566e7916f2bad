/**
 * Python sinks beyond the core table (python-sinks.ts): pathlib I/O, `os.path` probes,
 * elementpath XPath, shell argument vectors (`["sh", "-c", cmd]`), Django's
 * `HttpResponse.write`, and session writes (trust boundary: Flask `session[k] = v`, Django
 * `request.session[k] = v`).
 */
import { sinkMaker, type FieldSinkRule, type SinkExtra as Extra, type SinkRule } from "./spec";

const sink = sinkMaker("py-taint-");

const PATH: Extra = {
  message: "Untrusted data is used as a file path.",
  remediation:
    "Reduce the name with `werkzeug.utils.secure_filename` or `os.path.basename`, or resolve it under a fixed base directory and check that the result " +
    "stays inside (`path.resolve().is_relative_to(base)`).",
};
const XPATH: Extra = {
  message: "Untrusted data is built into an XPath expression.",
  remediation:
    'Keep the expression constant and pass input as variables (`elementpath.select(root, "//user[@name=$name]", variables={...})`).',
  severity: "MEDIUM",
};
const TRUST_BOUNDARY = {
  message: "Untrusted data is stored in the session next to trusted data.",
  remediation: "Validate the data before storing it in the session, and never let input choose the key.",
};

/** A shell as the program of an argument list, given a script (typestate.ts shows a list as `argv:prog arg …`). */
const SHELL_ARGV =
  /^argv:(\S*\/)?(ba|da|z|k|c|tc|fi|a)?sh -c\b|^argv:(\S*[\\/])?cmd(\.exe)? \/c\b|^argv:(\S*[\\/])?(powershell|pwsh)(\.exe)? -(c|command)\b/i;
/** Methods only pathlib paths have: a tainted receiver is the path. */
const PATHLIB_IO = [
  "read_text",
  "read_bytes",
  "write_text",
  "write_bytes",
  "iterdir",
  "touch",
  "unlink",
  "rmdir",
  "symlink_to",
  "hardlink_to",
  "rglob",
];
/** A receiver made by a pathlib constructor, or named like a path. */
const PATHLIB_RECEIVER = /^(pathlib\.)?(Pure)?(Posix|Windows)?Path\(|(^|[._])(path|file_path|filepath|target|dest|destination)$/i;
/** Flask's `session` (imported from flask), Django's `request.session`. */
const SESSION_OBJECT = /^flask\.session$|^(self\.)?request\.session$/;

export const PYTHON_APP_SINKS: SinkRule[] = [
  // An argument list whose program is a shell given a script (`["sh", "-c", cmd]`): a shell, whatever `shell=` says.
  sink(
    "subprocess-shell-argv",
    "CWE-78",
    "OS command injection",
    { names: ["run", "call", "check_call", "check_output", "Popen"], path: /^subprocess\.(run|call|check_call|check_output|Popen)$/ },
    {
      message: "Untrusted data reaches a shell script run through an argument list (`sh -c`).",
      remediation: "Run the program itself with its arguments in a list (no `sh -c`), and validate arguments against an allowlist.",
      severity: "CRITICAL",
      args: [0, "args"],
      when: { arg: 0, kw: "args", text: SHELL_ARGV },
    },
  ),
  // pathlib: the I/O a Path made from input performs (`Path(base) / name`, `Path(x)`); making the Path does none.
  sink("path-pathlib", "CWE-22", "Path traversal", { names: PATHLIB_IO }, { ...PATH, args: [], receiver: true }),
  sink(
    "path-pathlib-open",
    "CWE-22",
    "Path traversal",
    { names: ["open", "mkdir", "exists", "is_file", "is_dir", "stat", "chmod"], receiver: PATHLIB_RECEIVER },
    { ...PATH, args: [], receiver: true },
  ),
  sink(
    "path-pathlib-rename",
    "CWE-22",
    "Path traversal",
    { names: ["rename", "replace"], receiver: PATHLIB_RECEIVER },
    { ...PATH, args: [0, "target"], receiver: true },
  ),
  // Probes that only tell whether a file exists or how big it is: an oracle, not a read.
  sink(
    "path-probe",
    "CWE-22",
    "Path traversal (file probe)",
    {
      names: ["exists", "lexists", "isfile", "isdir", "islink", "getsize", "getmtime", "getatime", "getctime"],
      path: /^(os\.path|posixpath|ntpath)\.(exists|lexists|isfile|isdir|islink|getsize|getmtime|getatime|getctime)$/,
    },
    {
      message: "Untrusted data chooses a file whose existence, type or size the application reveals.",
      remediation: PATH.remediation,
      args: [0, "path"],
      severity: "LOW",
    },
  ),
  sink(
    "xpath-elementpath",
    "CWE-643",
    "XPath injection",
    { names: ["select", "iter_select"], path: /^elementpath\.(select|iter_select)$/ },
    { ...XPATH, args: [1, "path"] },
  ),
  sink(
    "xpath-elementpath-selector",
    "CWE-643",
    "XPath injection",
    { names: ["Selector"], path: /^elementpath\.Selector$/ },
    { ...XPATH, args: [0, "path"] },
  ),
  // Django: a response written to after it is made (`response = HttpResponse(); response.write(x)`).
  sink(
    "xss-django-write",
    "CWE-79",
    "Cross-site scripting",
    { names: ["write", "writelines"], receiver: /^(django\.http(\.response)?\.)?(HttpResponse|StreamingHttpResponse)\(/ },
    {
      message: "Untrusted data is written into an HTML response without encoding.",
      remediation: "Render through a template with autoescaping, or escape with `django.utils.html.escape`.",
      severity: "MEDIUM",
      args: [0, "content", "lines"],
    },
  ),
  sink(
    "trust-boundary",
    "CWE-501",
    "Trust boundary violation",
    { names: ["update", "setdefault"], receiver: /^session$|^(self\.)?request\.session$/ },
    { ...TRUST_BOUNDARY, severity: "MEDIUM", args: "all" },
  ),
];

/** Assignments into the session: `session[key] = value` (Flask), `request.session[key] = value` (Django). */
export const PYTHON_FIELD_SINKS: FieldSinkRule[] = [
  {
    id: "py-taint-trust-boundary",
    field: /(?!)/,
    object: SESSION_OBJECT,
    index: true,
    cwe: "CWE-501",
    title: "Trust boundary violation",
    ...TRUST_BOUNDARY,
    severity: "MEDIUM",
  },
];
