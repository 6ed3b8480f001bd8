#!/usr/bin/env bash
# Runs every test on a fresh machine: fetches the etcd releases the tests use, builds the root file
# system of the systemd machines (systemd-nspawn, from Debian's packages; needs root), then builds
# and tests all modules.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/scripts/fetch-etcd.sh
bash deploy/scripts/machines.sh rootfs
mvn -B -ntp verify "$@"
