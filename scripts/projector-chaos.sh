#!/usr/bin/env bash
# The projector killed with SIGKILL at random points of a long catch-up, again and again, then let finish: every
# projection table must then equal, row for row, what a replay of the log builds. On a throwaway cluster:
#   1. the bench's workload (EVENTS events, default 1,000,000) ingested, then the projections emptied and the
#      checkpoint set back to 0, as a log appended by processes killed before projecting would leave them (the
#      terminal bindings, which the append keeps, stay);
#   2. KILLS times (default 8): 'geoledger project' started and killed with SIGKILL after a random 1 to 8 s; the
#      checkpoint after each kill is printed, and must never go back;
#   3. 'geoledger project' to the end, then an md5 of each projection table's sorted rows;
#   4. 'geoledger replay', the md5s again: they must be the same.
# Prints name=value lines and ends with 'chaos=ok', or exits 1 naming the table that differs.
# Usage: scripts/projector-chaos.sh [EVENTS [KILLS]]   (after 'make release'; GEOLEDGER names the binary)
set -euo pipefail
cd "$(dirname "$0")/.."
events=${1:-1000000}
kills=${2:-8}
geoledger=${GEOLEDGER:-.build/release/geoledger}
bench=$(dirname "$geoledger")/geoledger-bench
port=${CHAOS_PORT:-55470}

dir=$(mktemp -d /tmp/geoledger-chaos.XXXXXX)
chmod 755 "$dir"
workload="$dir/workload.ndjson"
trap '"$geoledger" db stop --dir "$dir/cluster" --port "$port" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
DATABASE_URL=$("$geoledger" db start --dir "$dir/cluster" --port "$port" --throwaway --print superuser)
export DATABASE_URL
"$geoledger" migrate >/dev/null
"$bench" workload "$workload" --events "$events" >/dev/null
"$geoledger" ingest "$workload" --quiet >/dev/null || true  # the workload holds invalid lines on purpose
psql -q "$DATABASE_URL" -c "
    TRUNCATE projections.fixes, projections.failures, projections.visits, projections.latest_fixes,
        projections.daily_events, projections.fix_days, projections.accuracy_buckets;
    UPDATE projections.checkpoint SET position = 0;"
head=$(psql -Atq "$DATABASE_URL" -c "SELECT max(position) FROM events")
echo "chaos_events=$head"

checkpoint() { psql -Atq "$DATABASE_URL" -c "SELECT position FROM projections.checkpoint"; }
previous=0
for kill in $(seq 1 "$kills"); do
    "$geoledger" project >/dev/null 2>&1 &
    pid=$!
    sleep "$(awk -v seed="$RANDOM" 'BEGIN { srand(seed); printf "%.2f", 1 + rand() * 7 }')"
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    position=$(checkpoint)
    echo "chaos_kill_${kill}_checkpoint=$position"
    if [ "$position" -lt "$previous" ]; then echo "the checkpoint went back from $previous to $position" >&2; exit 1; fi
    previous=$position
done

"$geoledger" project >/dev/null
[ "$(checkpoint)" = "$head" ] || { echo "the projections stopped at $(checkpoint), not $head" >&2; exit 1; }

tables=$(psql -Atq "$DATABASE_URL" -c "SELECT tablename FROM pg_tables WHERE schemaname = 'projections' ORDER BY 1")
digests() {
    for table in $tables; do
        echo "$table $(psql -Atq "$DATABASE_URL" -c "SELECT md5(coalesce(string_agg(t::text, E'\n' ORDER BY t::text), '')) FROM projections.$table t")"
    done
}
projected=$(digests)
"$geoledger" replay --quiet >/dev/null
replayed=$(digests)
if [ "$projected" != "$replayed" ]; then
    diff <(echo "$projected") <(echo "$replayed") >&2 || true
    echo "chaos=differs"
    exit 1
fi
echo "chaos_tables=$(echo "$tables" | wc -w)"
echo "chaos=ok"
