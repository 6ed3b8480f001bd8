#!/usr/bin/env bash
# Runs every test on a fresh machine: fetches the etcd releases the tests use, then builds and tests all modules.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/scripts/fetch-etcd.sh
mvn -B -ntp verify "$@"
