#!/usr/bin/env bash
# The Python tools the tests use, in .build/python-tools at the versions Tests/GeneratedClient/requirements.txt pins:
# openapi-python-client, which generates the client a test posts and reads with (GeneratedClientTests). Installed
# from PyPI once, and again when the pins change. As root it installs Debian's python3-venv when Python lacks venv;
# otherwise it names the command to run and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
tools=.build/python-tools
requirements=Tests/GeneratedClient/requirements.txt

if [ -x "$tools/bin/openapi-python-client" ] && cmp -s "$requirements" "$tools/requirements.txt"; then exit 0; fi

if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "installing python3 python3-venv" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null
    else
        echo "Python 3 with venv is missing: sudo apt-get install python3 python3-venv" >&2
        exit 1
    fi
fi

echo "installing $(tr '\n' ' ' < "$requirements")into $tools" >&2
rm -rf "$tools"
python3 -m venv "$tools"
"$tools/bin/pip" install -q --disable-pip-version-check -r "$requirements"
cp "$requirements" "$tools/requirements.txt"
