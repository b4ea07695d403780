#!/usr/bin/env bash
# The Python tools the tests use, in .build/python-tools at the versions the requirements files pin:
# openapi-python-client (Tests/GeneratedClient/requirements.txt), which generates the client a test posts and reads
# with (GeneratedClientTests), and Selenium (Tests/ConsoleBrowser/requirements.txt), which drives Debian's chromium
# through chromium-driver in the web console's browser tests. Installed from PyPI once, and again when the pins change. As root it installs Debian's python3-venv when Python lacks venv;
# otherwise it names the command to run and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
tools=.build/python-tools
pins=$(cat Tests/GeneratedClient/requirements.txt Tests/ConsoleBrowser/requirements.txt)

if [ -x "$tools/bin/openapi-python-client" ] && [ "$pins" = "$(cat "$tools/requirements.txt" 2>/dev/null)" ]; then exit 0; fi

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

echo "installing $(echo $pins) into $tools" >&2
rm -rf "$tools"
python3 -m venv "$tools"
"$tools/bin/pip" install -q --disable-pip-version-check $pins
printf '%s\n' "$pins" > "$tools/requirements.txt"
