#!/bin/sh
# Serves the HTTP API in the foreground, as `make run` and the Docker image do:
#   1. the private cluster under .data/ when DATABASE_URL is not set (geoledger db start);
#   2. migrations, as the owner;
#   3. on the first run, a token of scope admin, printed once and kept in $GEOLEDGER_DATA_DIR/admin-token (mode 600);
#   4. geoledger serve, after printing its URL, a curl line that works and the web console's address.
# GEOLEDGER names the binary (default .build/release/geoledger); GEOLEDGER_LISTEN the address (default
# 127.0.0.1:8080); GEOLEDGER_CONNECT_RETRY how long to wait for a database that is still starting.
set -eu

geoledger=${GEOLEDGER:-.build/release/geoledger}
data=${GEOLEDGER_DATA_DIR:-.data}
listen=${GEOLEDGER_LISTEN:-127.0.0.1:8080}
token_file="$data/admin-token"

if [ -z "${DATABASE_URL:-}" ]; then
    DATABASE_URL=$("$geoledger" db start)
    GEOLEDGER_OWNER_URL=$("$geoledger" db start --print owner)
    export DATABASE_URL GEOLEDGER_OWNER_URL
fi

"$geoledger" migrate

if [ ! -s "$token_file" ]; then
    mkdir -p "$data"
    token=$("$geoledger" token create --name admin --scopes admin) || {
        echo "geoledger: no admin token made; if one named admin exists from before, 'geoledger token revoke admin'" \
             "and run again, or make another with 'geoledger token create'" >&2
        exit 1
    }
    (umask 077 && printf '%s\n' "$token" > "$token_file.new")
    chmod 600 "$token_file.new"
    mv "$token_file.new" "$token_file"
    echo "Admin token (shown once; kept in $token_file, mode 600): $token"
fi

# The address a client on this machine uses: a wildcard host is reached on loopback.
host=${listen%:*}
port=${listen##*:}
case "$host" in
    0.0.0.0|"") host=127.0.0.1 ;;
    "[::]") host="[::1]" ;;
esac
url="http://$host:$port"
echo "Geoledger serves $url (stop with Ctrl-C). Try:"
echo "  curl -H \"Authorization: Bearer \$(cat $token_file)\" '$url/v1/events?after=0&limit=10'"
echo "Web console: $url/ (sign in with the token in $token_file)"
exec "$geoledger" serve --listen "$listen"
