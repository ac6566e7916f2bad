/**
 * Inline suppressions. An `ax-ignore` marker counts only inside a comment of the file's
 * language (comments/: a syntax-tree comment node, or a lexer's comment token), and only
 *   - in a comment on the finding's first line (a trailing comment counts for its own line), or
 *   - in a comment that stands alone on the line above (nothing else on that line).
 * The grammar:
 *   ax-ignore: reason                   every rule
 *   ax-ignore[js-weak-hash]: reason     only these rule ids or CWE ids (comma-separated)
 * A reason is required; a bare marker is recorded on the finding, not honoured. A finding
 * reported by several rules (its `sources`) is suppressed only when comments with a reason
 * cover every one of them; each source records the comment that names it.
 */
import { SUPPRESSION_REASON_MISSING, type FindingSource, type FindingSuppression, type NormalizedFinding } from "@ax/contracts";
import { findComments } from "./comments";

const NEEDLE = "ax-ignore";
const MARKER = /ax-ignore(?:\[([^\]]*)\])?(?:\s*[:\-—]+)?\s*(.*)$/;
/** The end of a block comment left after the reason (`*\/`, `-->`, `--%>`, `%>`, `?>`, `#>`). */
const CLOSER = /\s*(\*\/|--%>|-->|%>|\?>|#>)\s*$/;
const MAX_REASON = 500;

/** An `ax-ignore` marker in a comment. */
export interface Marker {
  /** 1-based line of the marker. */
  line: number;
  /** Nothing but its comment on that line: the marker can cover the next line. */
  alone: boolean;
  /** Rule ids and CWE ids it names; empty: every rule. */
  scope: string[];
  /** Null when it gives none. */
  reason: string | null;
}

/** Every marker in the comments of `text`, the content of `path`; the file is parsed only if it mentions `ax-ignore`. */
export function markersOf(path: string, text: string): Marker[] {
  if (!text.includes(NEEDLE)) return [];
  const lineStarts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  const markers: Marker[] = [];
  for (const span of findComments(path, text, NEEDLE)) {
    let line = lineOf(lineStarts, span.start);
    for (let at = span.start; at < span.end; line++) {
      const next = lineStarts[line] ?? text.length + 1;
      const segmentEnd = Math.min(span.end, next - 1);
      const m = MARKER.exec(text.slice(at, segmentEnd).replace(/\r$/, ""));
      if (m) {
        const lineStart = lineStarts[line - 1] as number;
        const before = text.slice(lineStart, at);
        const after = text.slice(segmentEnd, next - 1);
        const reason = (m[2] ?? "").replace(CLOSER, "").trim().slice(0, MAX_REASON);
        markers.push({
          line,
          alone: before.trim() === "" && after.trim() === "",
          scope: (m[1] ?? "")
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
          reason: reason || null,
        });
      }
      at = next;
    }
  }
  return markers;
}

export interface SuppressionDecision {
  /** The finding's sources, each with the comment that names its rule (`inline`), if any. */
  sources: FindingSource[];
  /** Set when comments with a reason cover every source. */
  suppression: FindingSuppression | null;
  /** Set when a comment without a reason would have covered a source. */
  ignored: string | null;
}

/** What the markers of the finding's file say about the finding. */
export function findSuppression(markers: readonly Marker[], f: NormalizedFinding): SuppressionDecision {
  const near = markers
    .filter((m) => m.line === f.start_line || (m.line === f.start_line - 1 && m.alone))
    // A marker with a reason before one without; then the finding's own line before the one above.
    .sort((a, b) => Number(a.reason === null) - Number(b.reason === null) || b.line - a.line);
  const sources = (f.sources ?? [{ analyzer: f.analyzer, rule_id: f.rule_id }]).map(({ inline: _stale, ...source }): FindingSource => {
    const m = near.find(
      (m) => m.scope.length === 0 || m.scope.some((s) => s === source.rule_id || (f.cwe_id !== null && s.toUpperCase() === f.cwe_id)),
    );
    return m ? { ...source, inline: { line: m.line, reason: m.reason } } : source;
  });
  const covered = sources.length > 0 && sources.every((s) => s.inline?.reason);
  const lead = (sources.find((s) => s.rule_id === f.rule_id) ?? sources[0])?.inline;
  return {
    sources,
    suppression: covered && lead?.reason ? { kind: "inline", reason: lead.reason, line: lead.line } : null,
    ignored: !covered && sources.some((s) => s.inline && s.inline.reason === null) ? SUPPRESSION_REASON_MISSING : null,
  };
}

function lineOf(lineStarts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((lineStarts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
