-- AI reasons and the AI policy per group (issue 21, items 4 and 5).
--
-- `ai_reasons`: the evidence that weighed most in the review model's label, in words (a JSON
-- array of strings). `ai_action`: what the group's policy did with the label when the scan
-- was stored — 'auto_closed' (status set to FALSE POSITIVE by the policy), 'suggested' or
-- 'needs_review'. NULL on findings without a label, and on findings stored before this.
ALTER TABLE findings ADD COLUMN ai_reasons jsonb;
ALTER TABLE findings ADD COLUMN ai_action text CHECK (ai_action IN ('auto_closed', 'suggested', 'needs_review'));
CREATE INDEX findings_ai_action_idx ON findings (scan_id, ai_action);

-- One row per group that has a policy; a group without one has the default (auto-close off,
-- suggest at 0.8), which is what the worker did before policies existed.
CREATE TABLE group_ai_policies (
  group_id         text PRIMARY KEY REFERENCES groups (id) ON DELETE CASCADE,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  auto_close_at    double precision CHECK (auto_close_at IS NULL OR (auto_close_at >= 0.5 AND auto_close_at <= 1)),
  suggest_at       double precision NOT NULL DEFAULT 0.8 CHECK (suggest_at >= 0 AND suggest_at <= 1),
  updated_by       text REFERENCES users (id) ON DELETE SET NULL,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CHECK (auto_close_at IS NULL OR auto_close_at >= suggest_at)
);

-- The policy's own history rows: a finding closed by the AI says so (source 'ai', no user).
ALTER TABLE finding_history DROP CONSTRAINT finding_history_source_check;
ALTER TABLE finding_history ADD CONSTRAINT finding_history_source_check CHECK (source IN ('review', 'carried', 'ai'));
