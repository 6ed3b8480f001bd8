#!/usr/bin/env bash
# Fetches etcd-server and etcd-client Debian packages for the releases the project tests against,
# with a private apt sources list and state dir (the machine's own apt setup is never touched),
# and extracts them with dpkg -x into a cache: $ETCD_RUNBOOKS_CACHE/etcd/<version>/bin/{etcd,etcdctl[,etcdutl]}.
# Idempotent: a version whose binaries are present and answer `etcd --version` is skipped.
set -euo pipefail

CACHE="${ETCD_RUNBOOKS_CACHE:-$HOME/.cache/etcd-runbooks}"
# version  suite  debian-package-version
RELEASES=(
  "3.3.25 bullseye 3.3.25+dfsg-6+b6"
  "3.4.23 bookworm 3.4.23-4+b4"
  "3.5.16 trixie 3.5.16-4"
  "3.5.30 sid 3.5.30-2"
)
ARCH="$(dpkg --print-architecture)"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
KEYRING="${DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}"

wanted=("$@")
is_wanted() { [ ${#wanted[@]} -eq 0 ] && return 0; local w; for w in "${wanted[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }

ready() { # version -> 0 if the cached binaries answer with that version
  local bin="$CACHE/etcd/$1/bin"
  [ -x "$bin/etcd" ] && [ -x "$bin/etcdctl" ] && [[ "$("$bin/etcd" --version 2>/dev/null)" == *"etcd Version: $1"* ]]
}

missing=()
for r in "${RELEASES[@]}"; do
  read -r version suite pkgver <<<"$r"
  is_wanted "$version" || continue
  if ready "$version"; then echo "etcd $version: cached in $CACHE/etcd/$version"; else missing+=("$r"); fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

APT="$CACHE/apt"
mkdir -p "$APT/lists/partial" "$APT/archives/partial" "$APT/debs"
: >"$APT/sources.list"
for r in "${missing[@]}"; do
  read -r _ suite _ <<<"$r"
  grep -q " $suite main" "$APT/sources.list" || echo "deb [signed-by=$KEYRING] $MIRROR $suite main" >>"$APT/sources.list"
done
APT_OPTS=(-o "Dir::Etc::SourceList=$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT/cache" -o "Dir::Cache::archives=$APT/archives"
  -o Dir::State::status=/dev/null -o Debug::NoLocking=1 -o APT::Architecture="$ARCH"
  -o Acquire::Languages=none -o APT::Sandbox::User=root -o Acquire::Retries=3)
mkdir -p "$APT/cache"
echo "apt-get update (private lists in $APT)"
apt-get "${APT_OPTS[@]}" update -qq

for r in "${missing[@]}"; do
  read -r version suite pkgver <<<"$r"
  work="$APT/debs/$version"; rm -rf "$work"; mkdir -p "$work"
  (cd "$work" && apt-get "${APT_OPTS[@]}" download -qq "etcd-server=$pkgver" "etcd-client=$pkgver")
  root="$work/root"; mkdir -p "$root"
  for deb in "$work"/*.deb; do dpkg -x "$deb" "$root"; done
  dest="$CACHE/etcd/$version"; tmp="$dest.tmp.$$"
  rm -rf "$tmp"; mkdir -p "$tmp/bin"
  for b in etcd etcdctl etcdutl; do
    src="$(find "$root/usr/bin" "$root/usr/sbin" -maxdepth 1 -name "$b" 2>/dev/null | head -n1 || true)"
    [ -n "$src" ] && cp "$src" "$tmp/bin/$b"
  done
  out="$("$tmp/bin/etcd" --version 2>&1 || true)"
  [[ "$out" == *"etcd Version: $version"* ]] || { echo "etcd $version: unexpected --version output: $out" >&2; exit 1; }
  rm -rf "$dest"; mv "$tmp" "$dest"; rm -rf "$work"
  echo "etcd $version: installed in $dest ($(ls "$dest/bin" | tr '\n' ' '))"
done
