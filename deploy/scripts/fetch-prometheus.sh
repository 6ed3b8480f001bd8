#!/usr/bin/env bash
# Fetches Debian's prometheus package (the server and promtool) into the project's cache:
# $ETCD_RUNBOOKS_CACHE/prometheus/<version>/bin/{prometheus,promtool}. The alert-rule and dashboard tests
# (worker's PrometheusRulesTest) run them. Same private apt setup as fetch-etcd.sh: the machine's own apt
# configuration is never touched, the package is extracted with dpkg -x; the suite's current revision of
# the upstream version is taken (a point release may rename the revision).
# Idempotent: a cached promtool that answers with the version is kept.
set -euo pipefail

VERSION=2.42.0
SUITE=bookworm
CACHE="${ETCD_RUNBOOKS_CACHE:-$HOME/.cache/etcd-runbooks}"
ARCH="$(dpkg --print-architecture)"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
KEYRING="${DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}"
dest="$CACHE/prometheus/$VERSION"

answers() { # dir -> 0 if its promtool and prometheus answer with the version
  [ -x "$1/bin/promtool" ] && [ -x "$1/bin/prometheus" ] &&
    [[ "$("$1/bin/promtool" --version 2>&1)" == *"version $VERSION"* ]]
}
if answers "$dest"; then
  echo "prometheus $VERSION: cached in $dest"
  exit 0
fi

APT="$CACHE/apt-prometheus"
mkdir -p "$APT/lists/partial" "$APT/archives/partial" "$APT/cache"
echo "deb [signed-by=$KEYRING] $MIRROR $SUITE main" >"$APT/sources.list"
APT_OPTS=(-o "Dir::Etc::SourceList=$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT/cache" -o "Dir::Cache::archives=$APT/archives"
  -o Dir::State::status=/dev/null -o Debug::NoLocking=1 -o APT::Architecture="$ARCH"
  -o Acquire::Languages=none -o APT::Sandbox::User=root -o Acquire::Retries=3)
echo "apt-get update (private lists in $APT)"
apt-get "${APT_OPTS[@]}" update -qq
pkgver="$(apt-cache "${APT_OPTS[@]}" madison prometheus | awk -F'|' -v want="$VERSION" -v suite=" $SUITE/" '
  { v = $2; gsub(/ /, "", v); up = v; sub(/^[0-9]+:/, "", up); sub(/-[^-]*$/, "", up); sub(/[+~](dfsg|ds).*$/, "", up)
    if (index($3, suite) && up == want) { print v; exit } }')"
if [ -z "$pkgver" ]; then
  echo "prometheus $VERSION: Debian $SUITE does not ship it ($(apt-cache "${APT_OPTS[@]}" madison prometheus | awk -F'|' '{ gsub(/ /, "", $2); printf "%s ", $2 }'))." >&2
  echo "Change VERSION/SUITE in $0 to a version the suite ships." >&2
  exit 1
fi
echo "prometheus $VERSION: Debian $SUITE has prometheus $pkgver"
work=$(mktemp -d "$APT/debs.XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get "${APT_OPTS[@]}" download -qq "prometheus=$pkgver")
dpkg -x "$work"/prometheus_*.deb "$work/root"
tmp="$dest.tmp.$$"
rm -rf "$tmp"; mkdir -p "$tmp/bin"
cp "$work/root/usr/bin/prometheus" "$work/root/usr/bin/promtool" "$tmp/bin/"
answers "$tmp" || { echo "prometheus $VERSION: the extracted promtool does not answer: $("$tmp/bin/promtool" --version 2>&1)" >&2; exit 1; }
rm -rf "$dest"; mv "$tmp" "$dest"
echo "prometheus $VERSION: installed in $dest"
