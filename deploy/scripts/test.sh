#!/usr/bin/env bash
# Runs every test on a fresh machine: fetches the etcd releases the tests use, builds the root file
# system of the systemd machines (systemd-nspawn, from Debian's packages; needs root), then builds
# and tests all modules.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/scripts/fetch-etcd.sh
# machines need root (systemd-nspawn): as another user their tests are skipped, saying so
if [ "$(id -u)" = 0 ]; then bash deploy/scripts/machines.sh rootfs; fi
mvn -B -ntp verify "$@"
