#!/usr/bin/env bash
# Install the system packages listed in scripts/system-packages.txt (Debian / Ubuntu), or say
# exactly how to. Already installed: says so and does nothing. Root: apt-get installs what is
# missing. Otherwise sudo does, when it can (it may ask for a password on a terminal). No way
# to install: prints the exact apt-get line and exits 1. Not Debian: lists the packages to find
# under your system's names, and goes on.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mapfile -t packages < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$here/system-packages.txt")

python3 - <<'PY' || echo "note: no virtual environment is active; create one first where pip refuses to install (python3 -m venv .venv && . .venv/bin/activate)" >&2
import sys
sys.exit(0 if sys.prefix != sys.base_prefix else 1)
PY

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "system packages: not a Debian/Ubuntu system; install your system's equivalents of: ${packages[*]}" >&2
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "system packages: all ${#packages[@]} installed"
  exit 0
fi

line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
  sudo=(sudo)
else
  echo "error: missing system packages: ${missing[*]}; install them with: sudo apt-get update && sudo $line" >&2
  exit 1
fi
echo "system packages: installing ${missing[*]}"
log="$(mktemp)"
if ! { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
  && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive $line -qq; } >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  echo "error: could not install ${missing[*]}; try: sudo apt-get update && sudo $line" >&2
  rm -f "$log"
  exit 1
fi
rm -f "$log"
echo "system packages: installed ${missing[*]}"
