#!/usr/bin/env bash
# The main job: builds if needed, fetches etcd and the Temporal CLI, then starts the real Temporal server with its Web UI
# (temporal server start-dev, SQLite in the demo's directory), the worker and the API, creates a 3-member sandbox at
# 3.3.25 and upgrades it to 3.5.30 through the API; the run can be watched in the Web UI, whose address it prints. It
# stops the server it started at the end (--keep-server: when interrupted). It runs the tools' jar: the product's jar
# (worker/target/etcd-runbooks.jar) starts no server and needs a real one.
# Options go to the demo command: --from=3.4.23 --to=3.5.16 --dir=DIR --keep-server --machines (systemd machines,
# needs root; builds their root file system first) --embedded (Temporal's in-memory test server instead, no Web UI)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/scripts/fetch-etcd.sh
case " $* " in
  *" --embedded "* | *" --help "* | *" -h "*) ;;
  *) bash deploy/scripts/fetch-temporal.sh ;;
esac
jar=tools/target/etcd-runbooks-tools.jar
if [ ! -f "$jar" ] || [ -n "$(find pom.xml */pom.xml */*/pom.xml */src */*/src -newer "$jar" -print -quit)" ]; then
  echo "building etcd-runbooks (mvn package, tests skipped)"
  mvn -B -ntp -q -DskipTests package
fi
case " $* " in
  *" --machines "*) bash deploy/scripts/machines.sh rootfs ;;
esac
exec java -jar "$jar" demo "$@"
