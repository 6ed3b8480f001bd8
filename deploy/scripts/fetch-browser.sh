#!/usr/bin/env bash
# What the Web UI browser test (worker's WebUiTest) drives: Debian's Chromium (/usr/bin/chromium, installed
# with apt-get as root; as another user this says how, and the test is skipped saying why) and playwright-core
# at the exact version deploy/browser/package-lock.json pins (checked by npm against the lock's integrity hash),
# installed with `npm ci` into the project's cache: $ETCD_RUNBOOKS_CACHE/browser/playwright-core-<version>.
# No browser is downloaded: playwright-core has no install script and drives /usr/bin/chromium.
# Idempotent: a cache filled from the same lock, and an installed Chromium, are kept.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
LOCKED="$(cd "$(dirname "$0")/../browser" && pwd)"
CACHE="${ETCD_RUNBOOKS_CACHE:-$HOME/.cache/etcd-runbooks}"
VERSION=$(sed -n 's/.*"playwright-core": *"\([^"]*\)".*/\1/p' "$LOCKED/package.json")
dir="$CACHE/browser/playwright-core-$VERSION"
# the cache is keyed by the version the tests look up, and stamped with the lock it was installed from
stamp=$(cat "$LOCKED/package.json" "$LOCKED/package-lock.json" | sha256sum | cut -d' ' -f1)

if [ ! -x "$CHROMIUM" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "chromium: installing Debian's package"
    # test.sh runs this beside machines.sh, which may be installing its own tools: wait for dpkg's lock
    apt_get() { apt-get -o DPkg::Lock::Timeout=600 "$@"; }
    if ! apt_get install -y -q chromium >/dev/null; then
      apt_get update -q >/dev/null
      apt_get install -y -q chromium >/dev/null
    fi
  else
    echo "fetch-browser.sh: $CHROMIUM is missing and only root can install it (apt-get install chromium);" \
      "the Web UI browser test is skipped until then" >&2
  fi
fi
if [ -x "$CHROMIUM" ]; then echo "chromium: $("$CHROMIUM" --version 2>/dev/null) at $CHROMIUM"; fi

if [ "$(cat "$dir/.complete" 2>/dev/null)" = "$stamp" ]; then
  echo "playwright-core: cached in $dir"
  exit 0
fi
rm -rf "$dir.partial"
mkdir -p "$dir.partial"
cp "$LOCKED/package.json" "$LOCKED/package-lock.json" "$dir.partial/"
echo "playwright-core: installing deploy/browser/package-lock.json's version from npm"
if ! (cd "$dir.partial" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --ignore-scripts --no-audit --no-fund \
  --update-notifier=false --loglevel=error >/dev/null); then
  echo "fetch-browser.sh: npm ci failed in $dir.partial (npm's error above): the npm registry must be reachable," \
    "and what it serves must match the lock's integrity hashes" >&2
  exit 1
fi
echo "$stamp" >"$dir.partial/.complete"
rm -rf "$dir"
mv "$dir.partial" "$dir"
echo "playwright-core: $(node -p "require('$dir/node_modules/playwright-core/package.json').version") in $dir"
