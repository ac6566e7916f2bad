-- Finding identity that follows the code, and triage decisions that belong to the project
-- (docs/scanning.md "Finding identity and triage"). `identity` names one finding across
-- commits and branches: a new scan's finding takes the identity of the earlier finding it
-- matches (through git's line mapping between the two commits, then by rule, code, scope and
-- context), or a new one. `locator` holds what that matching reads of the finding's
-- surroundings: digests of its normalized code and context, and its enclosing declarations.
ALTER TABLE findings ADD COLUMN identity text;
ALTER TABLE findings ADD COLUMN locator jsonb;
-- Findings stored before identities existed: their fingerprint was their identity.
UPDATE findings SET identity = fingerprint;
ALTER TABLE findings ALTER COLUMN identity SET NOT NULL;
CREATE INDEX findings_project_identity_idx ON findings (project_id, identity);

-- The scan record says which analyzers' earlier findings it could not vouch for (an analyzer
-- that failed, timed out or was skipped this time): those keep their decisions for the next
-- scan where they appear, and are not reported fixed.
ALTER TABLE scans ADD COLUMN notices jsonb NOT NULL DEFAULT '[]';

-- One row per finding identity and branch: the reviewer-set fields of the latest decision on
-- that branch, whichever scan it was made on. A new scan applies the same branch's row, else
-- the most recent row of any branch. Removed with the project (group hard delete).
CREATE TABLE triage_decisions (
  project_id       text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  organization_id  text NOT NULL,
  identity         text NOT NULL,
  branch           text NOT NULL,
  fields           jsonb NOT NULL,
  -- The finding the last change was made on (no foreign key: that scan may be deleted while
  -- the decision stays with the project).
  finding_id       text NOT NULL,
  decided_by       text REFERENCES users (id) ON DELETE SET NULL,
  decided_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, identity, branch)
);

-- Decisions made before this migration: the reviewer-set fields of the latest finding of each
-- identity and branch that has any (records of fixed findings excluded: the worker set those).
INSERT INTO triage_decisions (project_id, organization_id, identity, branch, fields, finding_id, decided_at)
SELECT DISTINCT ON (f.project_id, f.identity, coalesce(s.branch, ''))
       f.project_id, f.organization_id, f.identity, coalesce(s.branch, ''),
       (SELECT jsonb_object_agg(t.field, CASE t.field
                  WHEN 'status' THEN to_jsonb(f.status) WHEN 'reason' THEN to_jsonb(f.reason)
                  WHEN 'remediation' THEN to_jsonb(f.remediation) WHEN 'severity' THEN to_jsonb(f.severity)
                  WHEN 'impact' THEN to_jsonb(f.impact) WHEN 'likelihood' THEN to_jsonb(f.likelihood)
                  ELSE to_jsonb(f.confidence) END)
          FROM unnest(f.triaged_fields) AS t(field)
         WHERE t.field IN ('status', 'reason', 'remediation', 'severity', 'impact', 'likelihood', 'confidence')),
       f.id, f.updated_at
  FROM findings f JOIN scans s ON s.id = f.scan_id
 WHERE f.baseline_state <> 'absent'
   AND f.triaged_fields && ARRAY['status', 'reason', 'remediation', 'severity', 'impact', 'likelihood', 'confidence']
 ORDER BY f.project_id, f.identity, coalesce(s.branch, ''), f.updated_at DESC;
