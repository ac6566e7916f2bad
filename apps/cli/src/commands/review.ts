import { readFile } from "node:fs/promises";
import { codeContext } from "@ax/ai/review";
import { resolveOrganization, review } from "../api";
import { parseCommand, required, showHelp } from "../args";
import { connect } from "../context";
import { CliError, UsageError } from "../errors";
import type { Io } from "../io";
import { colorsFor, oneLine } from "../render";

export const REVIEW_HELP = `ax review — ask the review model whether a reported weakness in a local file is real

Usage:
  ax review --file FILE --line LINE [--cwe CWE-n] [--org O] [--json]

Sends the function around LINE (the same context the worker's auto-triage uses; a window
of lines when no function is found) and prints the class, TRUE_POSITIVE or FALSE_POSITIVE,
with the model's calibrated confidence and the evidence that weighed most (its reasons).

Options:
  --file FILE     the source file (read locally; only the snippet is sent)
  --line LINE     the reported line, from 1
  --cwe CWE-n     the weakness reported there, e.g. CWE-89
  --org O         organization id or name (needed when you belong to several)
  --json          print the service's answer as JSON`;

const OPTIONS = {
  file: { type: "string" },
  line: { type: "string" },
  cwe: { type: "string" },
  org: { type: "string" },
  json: { type: "boolean" },
} as const;

export async function reviewCommand(argv: string[], io: Io): Promise<number> {
  const { values: v } = parseCommand(argv, OPTIONS, REVIEW_HELP, 0);
  if (v.help) return showHelp(io, REVIEW_HELP);
  const file = required(v.file, "--file", REVIEW_HELP);
  const line = Number(required(v.line, "--line", REVIEW_HELP));
  if (!Number.isInteger(line) || line < 1) throw new UsageError("--line must be a line number (1 or more).", REVIEW_HELP);
  if (v.cwe !== undefined && !/^CWE-\d{1,6}$/i.test(v.cwe)) throw new UsageError("--cwe must look like CWE-89.", REVIEW_HELP);

  let source: string;
  try {
    source = await readFile(file, "utf8");
  } catch (e) {
    throw new CliError(`Cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const lines = source.split(/\r?\n/).length;
  if (line > lines) throw new UsageError(`--line ${line} is past the end of ${file} (${lines} lines).`, REVIEW_HELP);
  const context = codeContext(source, line, line, file);

  const c = await connect(io);
  const orgId = v.org !== undefined ? await resolveOrganization(c, v.org) : undefined;
  const verdict = await review(
    c,
    { code: context.code, line: String(line), file, ...(v.cwe ? { cwe_id: v.cwe.toUpperCase() } : {}) },
    { organization_id: orgId },
  );
  if (v.json) {
    io.out(`${JSON.stringify(verdict)}\n`);
    return 0;
  }
  const p = colorsFor(io);
  const cls = verdict.class === "TRUE_POSITIVE" ? p.red(verdict.class) : p.green(verdict.class);
  const what = context.how === "function" ? `function${context.name ? ` ${context.name}` : ""}` : "lines";
  io.out(
    `${cls}  confidence ${verdict.confidence.toFixed(2)}\n` +
      p.dim(`${what} ${context.startLine}-${context.endLine} of ${file} · model ${verdict.model} · request ${verdict.request_id}`) +
      "\n" +
      (verdict.reasons ?? []).map((r) => `- ${oneLine(r)}\n`).join(""),
  );
  return 0;
}
