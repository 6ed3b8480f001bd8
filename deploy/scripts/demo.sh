#!/usr/bin/env bash
# The main job on the embedded default: builds if needed, fetches etcd, then starts Temporal's in-memory test server,
# the worker and the API in one process, creates a 3-member sandbox at 3.3.25 and upgrades it to 3.5.30 through the API.
# It runs the tools' jar: the product's jar (worker/target/etcd-runbooks.jar) holds no test server and needs a real one.
# Options go to the demo command: --from=3.4.23 --to=3.5.16 --dir=DIR --machines (systemd machines, needs root;
# builds their root file system first)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/scripts/fetch-etcd.sh
jar=tools/target/etcd-runbooks-tools.jar
if [ ! -f "$jar" ] || [ -n "$(find pom.xml */pom.xml */*/pom.xml */src */*/src -newer "$jar" -print -quit)" ]; then
  echo "building etcd-runbooks (mvn package, tests skipped)"
  mvn -B -ntp -q -DskipTests package
fi
case " $* " in
  *" --machines "*) bash deploy/scripts/machines.sh rootfs ;;
esac
exec java -jar "$jar" demo "$@"
