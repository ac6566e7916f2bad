-- Webhooks (issue 7): per-organization HTTP callbacks for scan, triage and group events, and
-- the log of their deliveries. The secret signs deliveries, so it is kept recoverable:
-- "enc:v1:<iv>:<tag>:<ciphertext>" (AES-256-GCM) when WEBHOOK_SECRET_KEY is set, else as is.
CREATE TABLE webhooks (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  url              text NOT NULL,
  events           text[] NOT NULL,
  active           boolean NOT NULL DEFAULT true,
  secret           text NOT NULL,
  created_by       text REFERENCES users (id) ON DELETE SET NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_org_idx ON webhooks (organization_id, created_at, id);

-- One row per (webhook, event): the job retries update it in place. The payload is kept so
-- that every attempt sends the same bytes' content; it holds ids and counts, never secrets
-- or code. Deleting a webhook deletes its deliveries.
CREATE TABLE webhook_deliveries (
  id               text PRIMARY KEY,
  webhook_id       text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  event_id         text NOT NULL,
  event_type       text NOT NULL,
  payload          jsonb NOT NULL,
  state            text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  last_status      integer,
  last_error       text,
  duration_ms      integer,
  next_attempt_at  timestamptz,
  delivered_at     timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  -- An event emitted twice (a retried scan job) delivers once.
  UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (state, updated_at) WHERE state = 'pending';
