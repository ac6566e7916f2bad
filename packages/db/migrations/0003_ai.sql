-- AI (issue 4): review and chat requests, feedback votes, chat history, and the review
-- model's label on every finding (auto-triage). The AI label lives in its own columns:
-- a reviewer's status is never touched by it.

ALTER TABLE findings ADD COLUMN ai_class text;
ALTER TABLE findings ADD COLUMN ai_confidence double precision;
ALTER TABLE findings ADD COLUMN ai_model text;
CREATE INDEX findings_ai_idx ON findings (scan_id, ai_class, ai_confidence);

-- One row per AI answer (a review, a chat reply): what feedback refers to. `input` keeps
-- what the review model saw (code, cwe_id, file, line) so a vote becomes a labeled example
-- for the next training run; chat rows keep the prompt's specialist, not the whole prompt.
CREATE TABLE ai_requests (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  group_id         text REFERENCES groups (id) ON DELETE SET NULL,
  user_id          text REFERENCES users (id) ON DELETE SET NULL,
  kind             text NOT NULL CHECK (kind IN ('review', 'chat')),
  model            text NOT NULL,
  specialist       text,
  session_id       text,
  cwe_id           text,
  class            text,
  confidence       double precision,
  input            jsonb,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ai_requests_org_idx ON ai_requests (organization_id, created_at);

-- Every vote, relayed or not. One vote per user and request: voting again replaces it.
CREATE TABLE ai_feedback (
  request_id       text NOT NULL REFERENCES ai_requests (id) ON DELETE CASCADE,
  user_id          text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  group_id         text REFERENCES groups (id) ON DELETE SET NULL,
  feedback         boolean NOT NULL,
  relay_status     text NOT NULL CHECK (relay_status IN ('relayed', 'failed', 'disabled')),
  relay_error      text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (request_id, user_id)
);
CREATE INDEX ai_feedback_org_idx ON ai_feedback (organization_id);

-- Conversation history per (organization, user, sessione_id): a session id chosen by one
-- user is never visible to another, even with the same value.
CREATE TABLE chat_messages (
  id               bigserial PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id          text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  session_id       text NOT NULL,
  role             text NOT NULL CHECK (role IN ('user', 'assistant')),
  content          text NOT NULL,
  specialist       text,
  request_id       text,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chat_messages_session_idx ON chat_messages (organization_id, user_id, session_id, id);
