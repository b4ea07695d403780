#!/usr/bin/env bash
# Makes sure the Debian packages Geoledger builds and tests with are installed (openssl and curl: the TLS tests
# make their certificates and connect as clients with them; libjs-leaflet: the web console's map, which serve reads at
# run time). With --test, also those only the tests use: chromium and chromium-driver, the console's browser tests.
# As root it installs what is missing; otherwise it names the command to run and fails.
set -euo pipefail

packages=(postgresql libpq-dev libssl-dev libjemalloc-dev libmicrohttpd-dev libgnutls28-dev zlib1g-dev pkg-config time openssl curl libjs-leaflet)
[ "${1:-}" = "--test" ] && packages+=(chromium chromium-driver)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    echo "installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
    echo "missing Debian packages: ${missing[*]}" >&2
    echo "install them with: sudo apt-get install ${missing[*]}" >&2
    exit 1
fi
