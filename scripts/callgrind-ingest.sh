#!/usr/bin/env bash
# Instructions the ingest's client spends per event, as callgrind counts them (nearly the same from run to run on a
# quiet machine; under other load, the threads' waiting for each other changes the count):
# `geoledger ingest` of the bench's workload of SMALL and of LARGE events, each into a fresh database, under
# callgrind; the difference of the two totals over the difference of the lines leaves out what a run costs once
# (start-up, connections, migrations' check, the boundary index).
#
#   DATABASE_URL=postgresql://... scripts/callgrind-ingest.sh [BUILD_DIR] [SMALL] [LARGE]
#
# DATABASE_URL names a superuser (for CREATE DATABASE), as `geoledger db start --throwaway --print superuser`
# prints. BUILD_DIR defaults to .build/release (geoledger and geoledger-bench); SMALL and LARGE to 2000 and 6000.
set -euo pipefail

build=${1:-.build/release}
small=${2:-2000}
large=${3:-6000}
: "${DATABASE_URL:?DATABASE_URL names a superuser of a scratch cluster}"
work=$(mktemp -d /tmp/callgrind-ingest.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The total instructions of one ingest of a workload of $1 events; prints "lines instructions".
run() {
    local events=$1 db file url
    db="callgrind_ingest_${events}_$$_$RANDOM"
    file="$work/workload-$events.ndjson"
    "$build/geoledger-bench" workload "$file" --events "$events" >/dev/null
    psql "$DATABASE_URL" -qAt -c "CREATE DATABASE $db" >/dev/null
    url=$(python3 -c 'import re, sys; base, sep, query = sys.argv[1].partition("?"); print(re.match(r"[a-z]+://[^/]*", base).group(0) + "/" + sys.argv[2] + sep + query)' "$DATABASE_URL" "$db")
    DATABASE_URL=$url "$build/geoledger" migrate >/dev/null
    DATABASE_URL=$url GEOLEDGER_STATEMENT_TIMEOUT=0 valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.$events" \
        "$build/geoledger" ingest "$file" >/dev/null 2>"$work/valgrind.$events" || true
    psql "$DATABASE_URL" -qAt -c "DROP DATABASE $db" >/dev/null
    local total
    total=$(sed -n 's/^summary: //p' "$work/callgrind.$events")
    [ -n "$total" ] || { cat "$work/valgrind.$events" >&2; exit 1; }
    echo "$(wc -l <"$file") $total"
}

read -r small_lines small_total < <(run "$small")
read -r large_lines large_total < <(run "$large")
echo "small_lines=$small_lines small_instructions=$small_total"
echo "large_lines=$large_lines large_instructions=$large_total"
echo "instructions_per_event=$(((large_total - small_total) / (large_lines - small_lines)))"
