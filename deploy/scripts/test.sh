#!/usr/bin/env bash
# Runs every test on a fresh machine: fetches the etcd releases the tests use, builds the root file
# system of the systemd machines (systemd-nspawn, from Debian's packages; needs root), then builds
# and tests all modules. Each step's time is printed, and at the end the slowest test classes.
set -euo pipefail
cd "$(dirname "$0")/../.."
step() { # name command...: runs it and prints how long it took
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "test.sh: $name took $((SECONDS - start)) s"
}
step "fetching etcd releases" bash deploy/scripts/fetch-etcd.sh
# machines need root (systemd-nspawn): as another user their tests are skipped, saying so
if [ "$(id -u)" = 0 ]; then step "the machines' root fs" bash deploy/scripts/machines.sh rootfs; fi
trap 'bash deploy/scripts/slowest-tests.sh 15 || true' EXIT
step "mvn verify" mvn -B -ntp verify "$@"
