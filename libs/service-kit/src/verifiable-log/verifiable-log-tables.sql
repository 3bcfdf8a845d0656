-- A service's Merkle logs (docs/verifiable-records.md): one log per subject (a ledger, a workspace).
-- Entries are appended by the sealer only, in the commit order of the changes they record.
CREATE TABLE log_entries (
  log_id uuid NOT NULL,
  index bigint NOT NULL CHECK (index >= 0),
  type text NOT NULL,
  resource_id text NOT NULL,
  -- The row the entry was sealed from; one entry per change, ever.
  source_id text NOT NULL UNIQUE,
  -- The change's place in commit order: its writing transaction, then its sequence number.
  xid xid8 NOT NULL,
  seq bigint NOT NULL,
  committed_at timestamptz NOT NULL,
  -- The RFC 8785 canonical JSON that was hashed, and its RFC 9162 leaf hash.
  leaf text NOT NULL,
  leaf_hash bytea NOT NULL CHECK (length(leaf_hash) = 32),
  sealed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (log_id, index)
);
CREATE INDEX log_entries_resource_idx ON log_entries (log_id, resource_id, index);

-- Each log's head: its size and the frontier (one subtree root per set bit of the size).
CREATE TABLE log_heads (
  log_id uuid PRIMARY KEY,
  tree_size bigint NOT NULL CHECK (tree_size >= 0),
  peaks bytea[] NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Where the sealer stands in commit order: every change at or before it is sealed.
CREATE TABLE log_sealer (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  xid xid8 NOT NULL,
  seq bigint NOT NULL
);

CREATE TABLE log_checkpoints (
  log_id uuid NOT NULL,
  tree_size bigint NOT NULL CHECK (tree_size >= 0),
  root_hash bytea NOT NULL CHECK (length(root_hash) = 32),
  kid text NOT NULL,
  token text NOT NULL,
  signed_at timestamptz NOT NULL,
  PRIMARY KEY (log_id, tree_size)
);
