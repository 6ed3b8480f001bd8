#!/usr/bin/env bash
# Builds the base of the etcd-runbooks image without a container registry or engine: a Docker-format image tar
# (what `docker save` writes; Jib reads it as tar://) whose root file system is made of Debian bookworm packages
# (deploy/image/packages.txt and what they depend on, from a private apt setup, extracted with dpkg -x) and the etcd
# releases of deploy/etcd-releases.tsv (from deploy/scripts/fetch-etcd.sh's cache) under
# /opt/etcd-runbooks/releases/<version>/bin, the layout releases.localDir names.
# Usage: build-image-base.sh <out.tar>; <out.tar>.packages lists its Debian packages and etcd releases. Idempotent: the tar is rebuilt only when its inputs changed.
# No package script runs (dpkg -x), so what a postinst would make is made here: the JRE's trust store, /usr/bin/java,
# the user 10001 in /etc/passwd.
set -euo pipefail

OUT="$1"
HERE="$(cd "$(dirname "$0")" && pwd)"
CACHE="${ETCD_RUNBOOKS_CACHE:-$HOME/.cache/etcd-runbooks}"
PACKAGES_FILE="$HERE/../image/packages.txt"
RELEASES_FILE="$HERE/../etcd-releases.tsv"
SUITE=bookworm
ARCH="$(dpkg --print-architecture)"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
KEYRING="${DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}"
JVM=/usr/lib/jvm/java-17-openjdk-$ARCH

mapfile -t PACKAGES < <(grep -v '^#' "$PACKAGES_FILE" | grep -v '^ *$')
mapfile -t VERSIONS < <(awk '!/^#/ && NF { print $1 }' "$RELEASES_FILE")

for v in "${VERSIONS[@]}"; do
  [ -x "$CACHE/etcd/$v/bin/etcd" ] || "$HERE/fetch-etcd.sh" "$v"
done

key="$( { cat "$PACKAGES_FILE" "$HERE/../image/TrustStore.java" "$0"; for v in "${VERSIONS[@]}"; do
  echo "$v"; sha256sum "$CACHE/etcd/$v/bin/"*; done; } | sha256sum | cut -c1-16)"
if [ -f "$OUT" ] && [ "$(cat "$OUT.key" 2>/dev/null)" = "$key" ]; then
  echo "image base: up to date ($OUT)"; exit 0
fi

WORK="$CACHE/image"
APT="$WORK/apt"
mkdir -p "$APT/lists/partial" "$APT/archives/partial" "$APT/cache"
{ echo "deb [signed-by=$KEYRING] $MIRROR $SUITE main"; echo "deb [signed-by=$KEYRING] ${MIRROR%/debian}/debian-security $SUITE-security main"; } >"$APT/sources.list"
APT_OPTS=(-o "Dir::Etc::SourceList=$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT/cache" -o "Dir::Cache::archives=$APT/archives"
  -o Dir::State::status=/dev/null -o Debug::NoLocking=1 -o APT::Architecture="$ARCH"
  -o Acquire::Languages=none -o APT::Sandbox::User=root -o Acquire::Retries=3
  -o APT::Install-Recommends=false)
echo "image base: apt-get update (private lists in $APT)"
apt-get "${APT_OPTS[@]}" update -qq
# With an empty dpkg status every dependency is "missing", so this downloads the whole closure.
echo "image base: downloading ${PACKAGES[*]} and their dependencies from Debian $SUITE"
rm -f "$APT/archives/"*.deb
apt-get "${APT_OPTS[@]}" install -qq -y --download-only "${PACKAGES[@]}" >/dev/null

rm -rf "$WORK/root" "$WORK/releases" "$WORK/layers"
ROOT="$WORK/root"; mkdir -p "$ROOT" "$WORK/layers"
for deb in "$APT/archives/"*.deb; do dpkg -x "$deb" "$ROOT"; done
ls "$APT/archives/"*.deb | sed 's#.*/##' >"$WORK/debs.txt"

# what package scripts would have made
java_bin="$ROOT$JVM/bin/java"
[ -x "$java_bin" ] || { echo "image base: $JVM/bin/java missing after extraction" >&2; exit 1; }
mkdir -p "$ROOT/etc/ssl/certs/java" "$ROOT/usr/bin" "$ROOT/bin"
java "$HERE/../image/TrustStore.java" "$ROOT/usr/share/ca-certificates" "$ROOT/etc/ssl/certs/java/cacerts"
ln -sfn "$JVM/bin/java" "$ROOT/usr/bin/java"
[ -e "$ROOT/bin/sh" ] || ln -s dash "$ROOT/bin/sh"
printf 'root:x:0:0:root:/root:/bin/sh\netcd-runbooks:x:10001:10001:etcd-runbooks:/tmp:/usr/sbin/nologin\n' >"$ROOT/etc/passwd"
printf 'root:x:0:\netcd-runbooks:x:10001:\n' >"$ROOT/etc/group"
mkdir -p "$ROOT/tmp" "$ROOT/var/lib/etcd-runbooks/downloads" "$ROOT/etc/etcd-runbooks"
chmod 1777 "$ROOT/tmp"
rm -rf "$ROOT/usr/share/doc" "$ROOT/usr/share/man" "$ROOT/usr/share/info" "$ROOT/usr/share/lintian"

REL="$WORK/releases/opt/etcd-runbooks/releases"; mkdir -p "$REL"
for v in "${VERSIONS[@]}"; do
  mkdir -p "$REL/$v/bin"; cp -p "$CACHE/etcd/$v/bin/"* "$REL/$v/bin/"; chmod 0755 "$REL/$v/bin/"*
done

# Docker-format image tar: manifest.json, the config, one uncompressed layer per directory; reproducible
# (sorted, fixed owner and time).
layer() { # dir -> prints the layer's file name
  local tarball="$WORK/layers/$(basename "$1").tar" digest
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='@0' -C "$1" -cf "$tarball" .
  digest="$(sha256sum "$tarball" | cut -d' ' -f1)"
  mv "$tarball" "$WORK/layers/$digest.tar"; echo "$digest"
}
debian="$(layer "$ROOT")"; releases="$(layer "$WORK/releases")"
config="$(cat <<JSON
{"architecture":"$ARCH","os":"linux","config":{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin","JAVA_HOME=$JVM"]},"rootfs":{"type":"layers","diff_ids":["sha256:$debian","sha256:$releases"]},"history":[{"created_by":"deploy/scripts/build-image-base.sh: Debian $SUITE $(tr '\n' ' ' <"$WORK/debs.txt" | wc -w) packages"},{"created_by":"deploy/scripts/build-image-base.sh: etcd ${VERSIONS[*]}"}]}
JSON
)"
printf '%s' "$config" >"$WORK/layers/config.json"
config_digest="$(sha256sum "$WORK/layers/config.json" | cut -d' ' -f1)"
mv "$WORK/layers/config.json" "$WORK/layers/$config_digest.json"
printf '[{"Config":"%s.json","RepoTags":["etcd-runbooks-base:latest"],"Layers":["%s.tar","%s.tar"]}]' \
  "$config_digest" "$debian" "$releases" >"$WORK/layers/manifest.json"
mkdir -p "$(dirname "$OUT")"
(cd "$WORK/layers" && tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='@0' -cf "$OUT.tmp" -- *)
mv "$OUT.tmp" "$OUT"; echo "$key" >"$OUT.key"
# what the base holds, for the image's SBOM: each Debian package as name version, and each etcd release
{ sed -E 's/^([^_]+)_([^_]+)_.*/debian \1 \2/; s/%3a/:/' "$WORK/debs.txt"; printf 'etcd %s\n' "${VERSIONS[@]}"; } >"$OUT.packages"
rm -rf "$WORK/root" "$WORK/releases" "$WORK/layers"
echo "image base: $OUT ($(du -h "$OUT" | cut -f1); Debian $SUITE packages: $(wc -l <"$WORK/debs.txt"); etcd ${VERSIONS[*]})"
