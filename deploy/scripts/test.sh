#!/usr/bin/env bash
# Runs every test on a fresh machine: fetches the etcd releases the tests use, the Temporal CLI (the
# real Temporal server some tests start), Prometheus (promtool checks the shipped alert rules) and the browser the Web UI test drives, builds the root file
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
# The one-time downloads, each timed on its own: etcd's releases and the Temporal CLI, and beside them
# the machines' root fs (as root: systemd-nspawn; as another user the machines' tests are skipped,
# saying so), the browser (Debian's Chromium as root, playwright-core from npm) and what checks the
# Helm chart (helm and kubeconform built from the Go module proxy, Kubernetes' schemas made offline). All are cached:
# warm, each takes a second.
side_pids=()
side_logs=()
side_commands=()
beside() { # name command...: a step run beside the next ones; its output is shown when joined
  local log
  log=$(mktemp)
  (step "$@") >"$log" 2>&1 &
  side_pids+=($!)
  side_logs+=("$log")
  side_commands+=("${*:2}")
}
join_side_steps() {
  local i status
  for i in "${!side_pids[@]}"; do
    status=0
    wait "${side_pids[$i]}" || status=$?
    cat "${side_logs[$i]}"
    rm -f "${side_logs[$i]}"
    if [ "$status" != 0 ]; then
      echo "test.sh: ${side_commands[$i]} failed" >&2
      exit "$status"
    fi
  done
}
if [ "$(id -u)" = 0 ]; then
  beside "the machines' root fs (beside the etcd releases)" bash deploy/scripts/machines.sh rootfs
fi
beside "fetching the browser (beside the etcd releases)" bash deploy/scripts/fetch-browser.sh
beside "fetching helm, kubeconform and the Kubernetes schemas (beside the etcd releases)" bash deploy/scripts/fetch-helm.sh
step "fetching etcd releases" bash deploy/scripts/fetch-etcd.sh
step "fetching the Temporal CLI" bash deploy/scripts/fetch-temporal.sh
step "fetching the Python packages" bash deploy/scripts/fetch-python.sh
step "fetching Prometheus" bash deploy/scripts/fetch-prometheus.sh
join_side_steps
# The tests' etcd members fsync every commit: on tmpfs that costs nothing, on a VM's disk it is most of
# a write. Their sandboxes go there when /dev/shm takes files and runs programs (the members' binaries
# are copied into their hosts' directories), and are removed at the end.
test_tmp=""
if shm=$(mktemp -d /dev/shm/etcd-runbooks-tests.XXXXXX 2>/dev/null); then
  if printf '#!/bin/sh\nexit 0\n' >"$shm/probe" && chmod +x "$shm/probe" && "$shm/probe"; then
    rm -f "$shm/probe"
    test_tmp=$shm
  else
    rm -rf "$shm"
  fi
fi
finish() {
  bash deploy/scripts/slowest-tests.sh 15 || true
  if [ -n "$test_tmp" ]; then rm -rf "$test_tmp"; fi
}
trap finish EXIT
if [ -n "$test_tmp" ]; then
  echo "test.sh: the tests' sandboxes go to $test_tmp (tmpfs)"
  set -- -Dtest.tmpdir="$test_tmp" "$@"
else
  echo "test.sh: /dev/shm cannot take the tests' sandboxes; they go to the JVM's temporary directory"
fi
# -T 2: a module whose dependencies are built starts beside the others (activities-it's tests run
# while api and worker build and test), instead of after them
# ETCD_RUNBOOKS_IMAGE=1: also the container image (worker's image profile: its base from Debian's archive, Jib, the
# SBOM, ImageTest, ImageDemoTest under podman; about 4 min cold), off by default to keep CI's time
if [ "${ETCD_RUNBOOKS_IMAGE:-}" = 1 ]; then
  step "installing podman and runc (the image's tests)" bash deploy/scripts/fetch-podman.sh
  set -- -Pimage "$@"
fi
step "mvn verify" mvn -B -ntp -T 2 verify "$@"
