#!/usr/bin/env bash
# Installs Debian's podman and runc for the image's tests (ETCD_RUNBOOKS_IMAGE=1 bash deploy/scripts/test.sh):
# ImageTest and ImageDemoTest run the image with podman and runc (crun 1.8, podman's default, refuses hosts
# whose cgroup v2 hierarchy holds a controller beside v1's). Without root they are not installed and those
# tests are skipped, saying why.
set -euo pipefail
if [ -x /usr/bin/podman ] && [ -x /usr/sbin/runc ]; then
  echo "podman: $(podman --version), $(runc --version | head -n1)"; exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "fetch-podman.sh: podman or runc is missing and only root can install them (apt-get install podman runc);" \
    "the image is not started under podman until then" >&2
  exit 0
fi
echo "podman: installing Debian's podman and runc"
apt_get() { apt-get -o DPkg::Lock::Timeout=600 "$@"; }
if ! apt_get install -y -q podman runc >/dev/null; then
  apt_get update -q >/dev/null
  apt_get install -y -q podman runc >/dev/null
fi
echo "podman: $(podman --version), $(runc --version | head -n1)"
