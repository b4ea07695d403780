-- Current state (`show`, GET /v1/merchants/{id} and /v1/terminals/{id}) is read by key from latest_fixes, each
-- merchant's and terminal's newest fix and newest precise fix, instead of searching the fix history: it needs each
-- fix's claim mismatch too. The rows stored so far take theirs from the fix they name.

-- On Citus, the commands below may not follow writes to the shards over several connections in one transaction: this
-- one writes them over one, as in 0011.
SET LOCAL citus.multi_shard_modify_mode TO 'sequential';

ALTER TABLE projections.latest_fixes ADD COLUMN claim_mismatch boolean;

UPDATE projections.latest_fixes l SET claim_mismatch = f.claim_mismatch
FROM projections.fixes f WHERE f.entity_id = l.entity_id AND f.position = l.position;

-- Through EXECUTE: Citus passes the text of the command on to the workers, which take one statement at a time.
DO $$
BEGIN
    EXECUTE 'ALTER TABLE projections.latest_fixes ALTER COLUMN claim_mismatch SET NOT NULL';
END
$$;
