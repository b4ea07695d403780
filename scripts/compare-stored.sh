#!/usr/bin/env bash
# Whether two builds store the same thing for the same input: `geoledger ingest` of the bench's workload by each,
# under one pinned wall clock (an LD_PRELOAD shim answers clock_gettime(CLOCK_REALTIME), gettimeofday and time with
# a fixed instant, as the receive and recording times are hashed), each into a fresh database. Prints each build's
# log head, the md5 of its rejects file and of every table's rows in a fixed order; exits 1 when they differ.
#
#   DATABASE_URL=postgresql://... scripts/compare-stored.sh OLD_BUILD_DIR NEW_BUILD_DIR [EVENTS | FILE]
#
# DATABASE_URL names a superuser of a scratch cluster (for CREATE DATABASE); each build dir holds geoledger and
# geoledger-bench. The input is a workload of EVENTS events (default 20000), or FILE.
set -euo pipefail

old=${1:?the old build folder}
new=${2:?the new build folder}
events=${3:-20000}
: "${DATABASE_URL:?DATABASE_URL names a superuser of a scratch cluster}"
work=$(mktemp -d /tmp/compare-stored.XXXXXX)
trap 'rm -rf "$work"' EXIT

cat >"$work/clock.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/time.h>
#include <time.h>
static const time_t fixed = 1800000000;
int clock_gettime(clockid_t id, struct timespec *ts) {
    static int (*real)(clockid_t, struct timespec *);
    if (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE) { ts->tv_sec = fixed; ts->tv_nsec = 123456000; return 0; }
    if (!real) real = dlsym(RTLD_NEXT, "clock_gettime");
    return real(id, ts);
}
int gettimeofday(struct timeval *tv, void *tz) { (void)tz; if (tv) { tv->tv_sec = fixed; tv->tv_usec = 123456; } return 0; }
time_t time(time_t *t) { if (t) *t = fixed; return fixed; }
EOF
cc -shared -fPIC -O2 -o "$work/clock.so" "$work/clock.c" -ldl
if [ -f "$events" ]; then
    cp "$events" "$work/workload.ndjson"
else
    "$new/geoledger-bench" workload "$work/workload.ndjson" --events "$events" >/dev/null
fi

tables="events projections.fixes projections.visits projections.terminals projections.failures
projections.latest_fixes projections.fix_days projections.daily_events projections.accuracy_buckets"

# What build $1 stores, one line each: the head, the rejects' md5, each table's md5.
stored() {
    local build=$1 db url
    db="compare_stored_$$_$RANDOM"
    psql "$DATABASE_URL" -qAt -c "CREATE DATABASE $db" >/dev/null
    url=$(python3 -c 'import re, sys; base, sep, query = sys.argv[1].partition("?"); print(re.match(r"[a-z]+://[^/]*", base).group(0) + "/" + sys.argv[2] + sep + query)' "$DATABASE_URL" "$db")
    DATABASE_URL=$url "$build/geoledger" migrate >/dev/null
    DATABASE_URL=$url LD_PRELOAD="$work/clock.so" "$build/geoledger" ingest "$work/workload.ndjson" \
        --rejects "$work/rejects.ndjson" 2>/dev/null | grep '^head=' || true
    echo "rejects $(md5sum <"$work/rejects.ndjson" | cut -c1-32)"
    for table in $tables; do
        echo "$table $(psql "$url" -qAt -c "COPY (SELECT t::text FROM $table t ORDER BY 1) TO STDOUT" | md5sum | cut -c1-32)"
    done
    psql "$DATABASE_URL" -qAt -c "DROP DATABASE $db" >/dev/null
}

stored "$old" >"$work/old"
stored "$new" >"$work/new"
paste -d'\n' <(sed 's/^/old /' "$work/old") <(sed 's/^/new /' "$work/new")
if cmp -s "$work/old" "$work/new"; then echo "same"; else echo "different"; exit 1; fi
