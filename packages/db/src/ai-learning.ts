/**
 * An organization's own labels for the review model (issue 21, item 6): the findings its
 * people triaged TRUE POSITIVE or FALSE POSITIVE, and their votes on review answers. Read for
 * one organization at a time — every query is scoped by its id — and never mixed with
 * another's; packages/ai/src/review/org-learning.ts turns them into counts.
 *
 * Triage comes from `triage_decisions`, which only a reviewer's `PUT …/finding/{id}` writes
 * (with the user as `decided_by`): a status the group's AI policy set at store time, or one
 * carried from an earlier scan, is not a new label. One label per finding identity and
 * project (the latest decision of any branch), read from a finding of that identity (the one
 * decided on when it still exists). Votes come from `ai_feedback` on `review` requests (the
 * latest vote per request), with what the model saw (`ai_requests.input`).
 */
import { sql } from "kysely";
import type { OrgLabelRow, TriagedLabelRow, VoteLabelRow } from "@ax/contracts";
import type { Db } from "./client";

export type { TriagedLabelRow, VoteLabelRow, OrgLabelRow };

/** At most this many labels of each kind are read (the most recent). */
export const ORG_LABEL_LIMIT = 10_000;
/** Enough of a finding's snippet for its sink line. */
const SNIPPET_LIMIT = 1_000;
/** Enough of a reviewed code for the line its request named (a cut code ends with a marker line, so it never looks like one line). */
const CODE_LIMIT = 2_000;

export async function triagedLabels(db: Db, organizationId: string, limit = ORG_LABEL_LIMIT): Promise<TriagedLabelRow[]> {
  const { rows } = await sql<{
    status: string;
    project_id: string;
    fingerprint: string;
    analyzer: string;
    rule_id: string;
    cwe_id: string | null;
    file: string;
    snippet: string;
    ai_class: string | null;
    ai_confidence: number | null;
  }>`
    SELECT l.status, l.project_id, f.fingerprint, f.analyzer, f.rule_id, f.cwe_id, f.file, f.snippet, f.ai_class, f.ai_confidence
      FROM (SELECT DISTINCT ON (d.project_id, d.identity)
                   d.project_id, d.identity, d.finding_id, d.fields->>'status' AS status, d.decided_at
              FROM triage_decisions d
             WHERE d.organization_id = ${organizationId}
               AND d.decided_by IS NOT NULL
               AND d.fields->>'status' IN ('TRUE POSITIVE', 'FALSE POSITIVE')
             ORDER BY d.project_id, d.identity, d.decided_at DESC) l
     CROSS JOIN LATERAL (
            SELECT x.fingerprint, x.analyzer, x.rule_id, x.cwe_id, x.file, left(x.snippet, ${SNIPPET_LIMIT}) AS snippet,
                   x.ai_class, x.ai_confidence
              FROM findings x
             WHERE x.organization_id = ${organizationId}
               AND x.project_id = l.project_id
               AND x.identity = l.identity
             ORDER BY (x.id = l.finding_id) DESC, x.created_at DESC
             LIMIT 1) f
     ORDER BY l.decided_at DESC, l.project_id, l.identity
     LIMIT ${limit}`.execute(db);
  return rows.map((r) => ({
    kind: "finding",
    truePositive: r.status === "TRUE POSITIVE",
    projectId: r.project_id,
    fingerprint: r.fingerprint,
    analyzer: r.analyzer,
    rule_id: r.rule_id,
    cwe_id: r.cwe_id,
    file: r.file,
    snippet: r.snippet,
    pTrue: pTrueOf(r.ai_class, r.ai_confidence),
  }));
}

export async function voteLabels(db: Db, organizationId: string, limit = ORG_LABEL_LIMIT): Promise<VoteLabelRow[]> {
  const { rows } = await sql<{
    feedback: boolean;
    class: string;
    cwe_id: string | null;
    file: string | null;
    line: string | null;
    code: string | null;
    confidence: number | null;
  }>`
    SELECT v.feedback, v.class, v.confidence, v.cwe_id, v.file, v.line, v.code
      FROM (SELECT DISTINCT ON (fb.request_id)
                   fb.request_id, fb.feedback, fb.updated_at, r.class, r.confidence,
                   r.input->>'cwe_id' AS cwe_id, r.input->>'file' AS file, r.input->>'line' AS line,
                   CASE WHEN length(r.input->>'code') <= ${CODE_LIMIT} THEN r.input->>'code'
                        ELSE left(r.input->>'code', ${CODE_LIMIT}) || E'\n…' END AS code
              FROM ai_feedback fb
              JOIN ai_requests r ON r.id = fb.request_id
             WHERE fb.organization_id = ${organizationId}
               AND r.organization_id = ${organizationId}
               AND r.kind = 'review'
               AND r.class IN ('TRUE_POSITIVE', 'FALSE_POSITIVE')
             ORDER BY fb.request_id, fb.updated_at DESC) v
     ORDER BY v.updated_at DESC, v.request_id
     LIMIT ${limit}`.execute(db);
  return rows
    .filter((r) => typeof r.code === "string" && r.code !== "")
    .map((r) => ({
      kind: "vote",
      truePositive: r.feedback === (r.class === "TRUE_POSITIVE"),
      cwe_id: r.cwe_id,
      file: r.file,
      line: r.line,
      code: r.code as string,
      pTrue: pTrueOf(r.class, r.confidence),
    }));
}

function pTrueOf(cls: string | null, confidence: number | null): number | null {
  if (confidence === null || !Number.isFinite(confidence)) return null;
  return cls === "TRUE_POSITIVE" ? confidence : cls === "FALSE_POSITIVE" ? 1 - confidence : null;
}

/** The organization's labels: triaged findings, then votes (each kind most recent first). */
export async function orgLabelRows(db: Db, organizationId: string, limit = ORG_LABEL_LIMIT): Promise<OrgLabelRow[]> {
  const [triaged, votes] = await Promise.all([triagedLabels(db, organizationId, limit), voteLabels(db, organizationId, limit)]);
  return [...triaged, ...votes];
}

/**
 * A digest of what the organization's labels are now (how many decisions and votes, and the
 * latest of each): when it is unchanged, counts built earlier still hold.
 */
export async function orgLabelSignature(db: Db, organizationId: string): Promise<string> {
  const { rows } = await sql<{ d: string; dmax: string | null; v: string; vmax: string | null }>`
    SELECT (SELECT count(*) FROM triage_decisions WHERE organization_id = ${organizationId})::text AS d,
           (SELECT max(decided_at) FROM triage_decisions WHERE organization_id = ${organizationId})::text AS dmax,
           (SELECT count(*) FROM ai_feedback WHERE organization_id = ${organizationId})::text AS v,
           (SELECT max(updated_at) FROM ai_feedback WHERE organization_id = ${organizationId})::text AS vmax`.execute(db);
  const r = rows[0];
  return r ? `${r.d}|${r.dmax ?? ""}|${r.v}|${r.vmax ?? ""}` : "";
}
