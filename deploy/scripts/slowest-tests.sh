#!/usr/bin/env bash
# The slowest test classes of the last build, from the surefire reports of every module (both layers):
# where CI's time goes. Usage: slowest-tests.sh [N] (default 15).
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-15}"
find . -path '*/target/surefire-reports*/TEST-*.xml' -print0 2>/dev/null \
  | xargs -0 -r grep -ho '<testsuite [^>]*>' \
  | sed -nE 's/.* name="([^"]*)".* time="([0-9.,]+)".*/\2 \1/p' \
  | tr -d ',' | sort -rn | head -n "$n" \
  | awk 'BEGIN { print "slowest test classes (seconds):" } { printf "  %8.1f  %s\n", $1, $2 }'
