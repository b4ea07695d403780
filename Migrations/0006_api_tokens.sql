-- Bearer tokens of the HTTP API. Only each token's SHA-256 is kept: the token itself is printed once, when it is
-- made, and never stored. `token_id` is the public part of the token, by which a request's token is found before
-- its hash is compared in constant time.

CREATE TABLE api_tokens (
    name text PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9_.:-]{1,64}$'),
    token_id text NOT NULL UNIQUE,
    token_hash bytea NOT NULL CHECK (octet_length(token_hash) = 32),
    scopes text[] NOT NULL CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY['ingest', 'read', 'admin']),
    created_at timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz
);
