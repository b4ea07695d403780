#!/usr/bin/env bash
# Builds Citus from the vendored source tarball (with its PostgreSQL 15.20 build fix) against the installed
# PostgreSQL 15 and installs it into PostgreSQL's extension folders. The build is cached outside the checkout, keyed
# by the tarball, the patch and the server headers' version: a second run only checks that it is installed.
#
#   scripts/citus.sh            build if needed, then install (as root)
#   CITUS_VENDOR_DIR=DIR        where citus-*.tar.gz and its patch are (default: ../shared/vendor from the checkout)
#   GEOLEDGER_CACHE=DIR         the cache (default: /var/cache/geoledger as root, else ~/.cache/geoledger)
set -euo pipefail
cd "$(dirname "$0")/.."

vendor=${CITUS_VENDOR_DIR:-../shared/vendor}
tarball=$(ls "$vendor"/citus-*.tar.gz 2>/dev/null | sort -V | tail -1 || true)
[ -n "$tarball" ] || { echo "no citus-*.tar.gz in $vendor (set CITUS_VENDOR_DIR)" >&2; exit 1; }
version=$(basename "$tarball" .tar.gz)
patches=$(ls "$vendor"/"$version"-*.patch 2>/dev/null || true)

if [ "$(id -u)" -eq 0 ]; then cache=${GEOLEDGER_CACHE:-/var/cache/geoledger}; else cache=${GEOLEDGER_CACHE:-$HOME/.cache/geoledger}; fi

packages=(postgresql-server-dev-15 liblz4-dev libzstd-dev libkrb5-dev make gcc patch)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "missing Debian packages: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
    echo "installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

pg_config=$(command -v pg_config || echo /usr/lib/postgresql/15/bin/pg_config)
key=$( (sha256sum "$tarball" $patches | cut -d' ' -f1; "$pg_config" --version) | sha256sum | cut -c1-16)
tree="$cache/citus/$version-$key"     # the installed files, as `make install DESTDIR=` lays them out

if [ ! -f "$tree/.complete" ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/geoledger-citus.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    echo "building $version against $("$pg_config" --version) (about a minute on 2 cores)" >&2
    tar -xzf "$tarball" -C "$work"
    source_dir="$work/$version"
    for patch_file in $patches; do patch -s -p1 -d "$source_dir" < "$patch_file"; done
    (
        cd "$source_dir"
        nice ./configure -q PG_CONFIG="$pg_config" --without-libcurl >"$work/configure.log" 2>&1 \
            || { tail -30 "$work/configure.log" >&2; exit 1; }
        nice make -s -j2 with_llvm=no >"$work/make.log" 2>&1 || { tail -30 "$work/make.log" >&2; exit 1; }
        rm -rf "$tree.partial" && mkdir -p "$tree.partial"
        make -s install with_llvm=no DESTDIR="$tree.partial" >"$work/install.log" 2>&1 \
            || { tail -30 "$work/install.log" >&2; exit 1; }
    )
    touch "$tree.partial/.complete"
    rm -rf "$tree" && mv "$tree.partial" "$tree"
fi

# Installed already when every cached file is in place with the same bytes.
installed=yes
while IFS= read -r -d '' file; do
    cmp -s "$file" "/${file#"$tree"/}" || { installed=no; break; }
done < <(find "$tree" -type f ! -name .complete -print0)
if [ "$installed" = no ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "Citus is built in $tree; install it as root with: sudo cp -a $tree/usr/. /usr/" >&2
        exit 1
    fi
    cp -a "$tree/usr/." /usr/
    echo "installed $version into $("$pg_config" --pkglibdir)" >&2
fi
