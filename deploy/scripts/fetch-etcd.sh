#!/usr/bin/env bash
# Fetches the etcd releases the project tests against into a cache:
# $ETCD_RUNBOOKS_CACHE/etcd/<version>/bin/{etcd,etcdctl[,etcdutl]}.
# Which versions and from where: deploy/etcd-releases.tsv.
# - A Debian suite: etcd-server and etcd-client packages, with a private apt sources list and state dir (the
#   machine's own apt setup is never touched), extracted with dpkg -x; the suite's current revision is taken.
# - `go`: built from the Go module proxy with the small module in deploy/etcd-build/<version>/ (its go.sum
#   pins every module; its mains are etcd's own entry points), no other download.
# Beside the binaries, source.tsv says what each was built from as a package URL (the image's SBOM reads it):
# `etcd<TAB>pkg:deb/debian/etcd-server@3.5.30-2?arch=amd64&distro=sid` or `pkg:golang/go.etcd.io/etcd/server/v3@v3.6.16`.
# Idempotent: a version whose binaries are present, answer `etcd --version` and have their source.tsv is skipped.
set -euo pipefail

CACHE="${ETCD_RUNBOOKS_CACHE:-$HOME/.cache/etcd-runbooks}"
RELEASES_FILE="${ETCD_RUNBOOKS_RELEASES_FILE:-$(dirname "$0")/../etcd-releases.tsv}"
RELEASES=()  # "version suite", from the releases file
while read -r version suite _; do
  [[ -z "$version" || "$version" == \#* ]] && continue
  RELEASES+=("$version $suite")
done <"$RELEASES_FILE"
ARCH="$(dpkg --print-architecture)"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
KEYRING="${DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}"

wanted=("$@")
is_wanted() { [ ${#wanted[@]} -eq 0 ] && return 0; local w; for w in "${wanted[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }

ready() { # version -> 0 if the cached binaries answer with that version
  local bin="$CACHE/etcd/$1/bin"
  [ -x "$bin/etcd" ] && [ -x "$bin/etcdctl" ] && [[ "$("$bin/etcd" --version 2>/dev/null)" == *"etcd Version: $1"* ]]
}

described() { [ -s "$CACHE/etcd/$1/source.tsv" ]; }

go_source() { # version -> source.tsv of a release built from etcd's Go modules (deploy/etcd-build/<version>/go.mod)
  printf 'etcd\tpkg:golang/go.etcd.io/etcd/server/v3@v%s\netcdctl\tpkg:golang/go.etcd.io/etcd/etcdctl/v3@v%s\netcdutl\tpkg:golang/go.etcd.io/etcd/etcdutl/v3@v%s\n' "$1" "$1" "$1"
}

missing=()   # from Debian
to_build=()  # from the Go module proxy
for r in "${RELEASES[@]}"; do
  read -r version suite <<<"$r"
  is_wanted "$version" || continue
  if ready "$version" && described "$version"; then echo "etcd $version: cached in $CACHE/etcd/$version"
  elif ready "$version" && [ "$suite" = go ]; then
    go_source "$version" >"$CACHE/etcd/$version/source.tsv"; echo "etcd $version: cached, its source.tsv written"
  elif [ "$suite" = go ]; then to_build+=("$version")
  else missing+=("$r"); fi
done

install_checked() { # version tmp-dir -> moves tmp-dir to the cache once its etcd answers with that version
  local version="$1" tmp="$2" dest="$CACHE/etcd/$1" out
  out="$("$tmp/bin/etcd" --version 2>&1 || true)"
  [[ "$out" == *"etcd Version: $version"* ]] || { echo "etcd $version: unexpected --version output: $out" >&2; exit 1; }
  # the same binaries already cached (only their source.tsv was missing): left in place, as tests may be running them
  if [ -d "$dest/bin" ] && diff -r -q "$tmp/bin" "$dest/bin" >/dev/null; then
    cp "$tmp/source.tsv" "$dest/source.tsv.$$" && mv "$dest/source.tsv.$$" "$dest/source.tsv"; rm -rf "$tmp"
    echo "etcd $version: cached in $dest, its source.tsv written"; return
  fi
  rm -rf "$dest"; mv "$tmp" "$dest"
  echo "etcd $version: installed in $dest ($(ls "$dest/bin" | tr '\n' ' '))"
}

build_from_go_proxy() { # version
  local version="$1" module="$BUILD_DIR/$1" tmp="$CACHE/etcd/$1.tmp.$$" proxy log
  [ -f "$module/go.mod" ] || { echo "etcd $version: $RELEASES_FILE says 'go' but $module/go.mod is missing." >&2; exit 1; }
  command -v go >/dev/null || { echo "etcd $version: building it needs the go command (Go 1.26+), which is not on PATH." >&2; exit 1; }
  proxy="$(go env GOPROXY)"
  if [ "$proxy" = off ]; then
    echo "etcd $version: GOPROXY=off, but this release is built from the Go module proxy (go.etcd.io/etcd/server/v3 v$version)." >&2
    echo "Set GOPROXY to a proxy that serves go.etcd.io/etcd (https://proxy.golang.org), or remove $version from $RELEASES_FILE." >&2
    exit 1
  fi
  rm -rf "$tmp"; mkdir -p "$tmp/bin"; log="$tmp.log"
  echo "etcd $version: building etcd, etcdctl and etcdutl from the Go module proxy ($proxy)"
  # -mod=readonly: the committed go.sum must already hold every module, so nothing unpinned is fetched
  if ! (cd "$module" && GOFLAGS=-mod=readonly CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' \
      -o "$tmp/bin/" ./etcd ./etcdctl ./etcdutl) >"$log" 2>&1; then
    echo "etcd $version: the build from the Go module proxy ($proxy) failed:" >&2
    tail -n 20 "$log" >&2
    echo "If the modules could not be downloaded, this machine must reach $proxy (or set GOPROXY to one that serves go.etcd.io/etcd)." >&2
    rm -rf "$tmp" "$log"; exit 1
  fi
  rm -f "$log"
  go_source "$version" >"$tmp/source.tsv"
  install_checked "$version" "$tmp"
}

BUILD_DIR="${ETCD_RUNBOOKS_BUILD_DIR:-$(dirname "$0")/../etcd-build}"
for version in "${to_build[@]}"; do build_from_go_proxy "$version"; done
[ ${#missing[@]} -eq 0 ] && exit 0

APT="$CACHE/apt"
mkdir -p "$APT/lists/partial" "$APT/archives/partial" "$APT/debs"
: >"$APT/sources.list"
for r in "${missing[@]}"; do
  read -r _ suite <<<"$r"
  grep -q " $suite main" "$APT/sources.list" || echo "deb [signed-by=$KEYRING] $MIRROR $suite main" >>"$APT/sources.list"
done
APT_OPTS=(-o "Dir::Etc::SourceList=$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT/cache" -o "Dir::Cache::archives=$APT/archives"
  -o Dir::State::status=/dev/null -o Debug::NoLocking=1 -o APT::Architecture="$ARCH"
  -o Acquire::Languages=none -o APT::Sandbox::User=root -o Acquire::Retries=3)
mkdir -p "$APT/cache"
echo "apt-get update (private lists in $APT)"
apt-get "${APT_OPTS[@]}" update -qq

# The Debian revision of an upstream version that a suite carries today: "3.5.30" in sid -> "3.5.30-2".
# Upstream is the Debian version without its epoch, its +dfsg/+ds repack suffix and its -revision.
debian_version() { # package version suite
  apt-cache "${APT_OPTS[@]}" madison "$1" | awk -F'|' -v want="$2" -v suite=" $3/" '
    { v = $2; gsub(/ /, "", v); up = v; sub(/^[0-9]+:/, "", up); sub(/-[^-]*$/, "", up); sub(/[+~](dfsg|ds).*$/, "", up)
      if (index($3, suite) && up == want) { print v; exit } }'
}
found_versions() { # package suite -> what the suite offers, for the error message
  apt-cache "${APT_OPTS[@]}" madison "$1" | awk -F'|' -v suite=" $2/" 'index($3, suite) { gsub(/ /, "", $2); printf "%s%s", sep, $2; sep = " " }'
}

for r in "${missing[@]}"; do
  read -r version suite <<<"$r"
  pkgver="$(debian_version etcd-server "$version" "$suite")"
  if [ -z "$pkgver" ]; then
    found="$(found_versions etcd-server "$suite")"
    echo "etcd $version: Debian $suite does not ship it (wanted upstream $version; $suite has etcd-server ${found:-none})." >&2
    echo "Choose a version the suite ships, or another suite, in $RELEASES_FILE." >&2
    exit 1
  fi
  echo "etcd $version: Debian $suite has etcd-server $pkgver"
  work="$APT/debs/$version"; rm -rf "$work"; mkdir -p "$work"
  (cd "$work" && apt-get "${APT_OPTS[@]}" download -qq "etcd-server=$pkgver" "etcd-client=$pkgver")
  root="$work/root"; mkdir -p "$root"
  for deb in "$work"/*.deb; do dpkg -x "$deb" "$root"; done
  dest="$CACHE/etcd/$version"; tmp="$dest.tmp.$$"
  rm -rf "$tmp"; mkdir -p "$tmp/bin"
  for b in etcd etcdctl etcdutl; do
    src="$(find "$root/usr/bin" "$root/usr/sbin" -maxdepth 1 -name "$b" 2>/dev/null | head -n1 || true)"
    [ -n "$src" ] || continue
    cp "$src" "$tmp/bin/$b"
    for deb in "$work"/*.deb; do # the package that holds it, as a package URL (version: ':' and '+' encoded)
      dpkg-deb -c "$deb" | grep -E " \./usr/s?bin/$b\$" >/dev/null || continue
      dpkg-deb --showformat='${Package}\t${Version}\n' -W "$deb" | while IFS=$'\t' read -r package debver; do
        printf '%s\tpkg:deb/debian/%s@%s?arch=%s&distro=%s\n' "$b" "$package" "$(sed 's/:/%3A/g; s/+/%2B/g' <<<"$debver")" \
          "$ARCH" "$suite"
      done
    done >>"$tmp/source.tsv"
  done
  install_checked "$version" "$tmp"; rm -rf "$work"
done
