-- Learning from an organization's own triage (issue 21, item 6): its decisions are read per
-- organization, most recent first (packages/db/src/ai-learning.ts), and their count and
-- latest time are checked before each review.
CREATE INDEX triage_decisions_org_idx ON triage_decisions (organization_id, decided_at);
