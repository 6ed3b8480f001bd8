#!/usr/bin/env bash
# Installs the Python packages deploy/python/requirements.txt pins (with their SHA-256, binary wheels only) into
# $ETCD_RUNBOOKS_CACHE/python/<sha-256 of that file>/, for deploy/scripts/decrypt-backup.py in the tests, which run
# it with `python3 -S` (no site-packages) and PYTHONPATH set there, so only these pinned packages are used.
# Prints nothing but errors when they are already there. Idempotent.
set -euo pipefail
CACHE="${ETCD_RUNBOOKS_CACHE:-$HOME/.cache/etcd-runbooks}"
REQUIREMENTS="$(dirname "$0")/../python/requirements.txt"
PYTHON="${PYTHON:-python3}"
command -v "$PYTHON" >/dev/null || { echo "fetch-python.sh: $PYTHON is not on PATH (CPython 3.11 is needed)" >&2; exit 1; }
dest="$CACHE/python/$(sha256sum "$REQUIREMENTS" | cut -c1-16)"
if PYTHONPATH="$dest" "$PYTHON" -S -c 'import cryptography.hazmat.primitives.ciphers.aead' 2>/dev/null; then
  echo "python packages: cached in $dest"
  exit 0
fi
tmp="$dest.tmp.$$"
rm -rf "$tmp"
if ! "$PYTHON" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-input --require-hashes --only-binary=:all: \
    --no-deps --target "$tmp" -r "$REQUIREMENTS"; then
  echo "fetch-python.sh: pip could not install $REQUIREMENTS from PyPI (pip's index: ${PIP_INDEX_URL:-https://pypi.org/simple})." >&2
  echo "The wheels pinned there are for CPython 3.11 on x86_64 Linux; on another Python, pin its wheels' hashes." >&2
  rm -rf "$tmp"; exit 1
fi
PYTHONPATH="$tmp" "$PYTHON" -S -c 'import cryptography.hazmat.primitives.ciphers.aead' \
  || { echo "fetch-python.sh: the installed cryptography does not import with $PYTHON" >&2; rm -rf "$tmp"; exit 1; }
rm -rf "$dest"; mv "$tmp" "$dest"
echo "python packages: installed in $dest"
