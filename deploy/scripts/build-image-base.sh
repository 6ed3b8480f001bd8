#!/usr/bin/env bash
# Builds the base of the etcd-runbooks image without a container registry or engine: a Docker-format image tar
# (what `docker save` writes; Jib reads it as tar://) whose root file system is made of Debian bookworm packages
# (deploy/image/packages.txt and what they depend on, from a private apt setup, extracted with dpkg -x), a JRE
# jlinked from Debian's openjdk-17 jmods with the modules of deploy/image/jre-modules.txt, and the etcd releases of
# deploy/etcd-releases.tsv (from deploy/scripts/fetch-etcd.sh's cache) under /opt/etcd-runbooks/releases/<version>/bin,
# the layout releases.localDir names.
# Usage: build-image-base.sh <out.tar>; <out.tar>.components.tsv lists what it holds for the image's SBOM
# (deploy/image/image_sbom.py). Idempotent: the tar is rebuilt only when its inputs changed.
# No package script runs (dpkg -x), so what a postinst would make is made here: the JRE's trust store, /usr/bin/java,
# the user 10001 in /etc/passwd.
set -euo pipefail

OUT="$1"
HERE="$(cd "$(dirname "$0")" && pwd)"
CACHE="${ETCD_RUNBOOKS_CACHE:-$HOME/.cache/etcd-runbooks}"
PACKAGES_FILE="$HERE/../image/packages.txt"
MODULES_FILE="$HERE/../image/jre-modules.txt"
JDK_PACKAGES=(openjdk-17-jre-headless openjdk-17-jdk-headless) # jlink and the jmods (not in the image)
RELEASES_FILE="$HERE/../etcd-releases.tsv"
SUITE=bookworm
ARCH="$(dpkg --print-architecture)"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
KEYRING="${DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}"
JVM=/usr/lib/jvm/java-17-openjdk-$ARCH

mapfile -t PACKAGES < <(grep -v '^#' "$PACKAGES_FILE" | grep -v '^ *$')
MODULES="$(grep -v '^#' "$MODULES_FILE" | grep -v '^ *$' | paste -sd, -)"
mapfile -t VERSIONS < <(awk '!/^#/ && NF { print $1 }' "$RELEASES_FILE")

for v in "${VERSIONS[@]}"; do
  [ -x "$CACHE/etcd/$v/bin/etcd" ] && [ -s "$CACHE/etcd/$v/source.tsv" ] || "$HERE/fetch-etcd.sh" "$v"
done

key="$( { cat "$PACKAGES_FILE" "$MODULES_FILE" "$HERE/../image/TrustStore.java" "$0"; for v in "${VERSIONS[@]}"; do
  echo "$v"; sha256sum "$CACHE/etcd/$v/bin/"*; cat "$CACHE/etcd/$v/source.tsv"; done; } | sha256sum | cut -c1-16)"
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

rm -rf "$WORK/root" "$WORK/releases" "$WORK/layers" "$WORK/jdk"
ROOT="$WORK/root"; mkdir -p "$ROOT" "$WORK/layers" "$WORK/jdk/debs"
for deb in "$APT/archives/"*.deb; do dpkg -x "$deb" "$ROOT"; done

# The JRE: jlink (of Debian's JDK, in a directory of its own, not the image) makes a runtime of the modules the
# product uses from Debian's jmods, at the path Debian's JRE has.
echo "image base: jlink of ${JDK_PACKAGES[*]}: $MODULES"
(cd "$WORK/jdk/debs" && apt-get "${APT_OPTS[@]}" download -qq "${JDK_PACKAGES[@]}")
for deb in "$WORK/jdk/debs/"*.deb; do dpkg -x "$deb" "$WORK/jdk"; done
# its configuration is linked to /etc/java-17-openjdk; this one's is beside it
find "$WORK/jdk$JVM" -type l -lname '/etc/java-17-openjdk/*' | while read -r l; do
  ln -sfn "$WORK/jdk$(readlink "$l")" "$l"; done
"$WORK/jdk$JVM/bin/jlink" --module-path "$WORK/jdk$JVM/jmods" --add-modules "$MODULES" --output "$ROOT$JVM" \
  --strip-debug --no-man-pages --no-header-files --compress=2
mkdir -p "$ROOT/etc/ssl/certs/java" "$ROOT/usr/bin" "$ROOT/bin"
java "$HERE/../image/TrustStore.java" "$ROOT/usr/share/ca-certificates" "$ROOT/etc/ssl/certs/java/cacerts"
ln -sfn /etc/ssl/certs/java/cacerts "$ROOT$JVM/lib/security/cacerts"
java_bin="$ROOT$JVM/bin/java"
[ -x "$java_bin" ] || { echo "image base: jlink made no $JVM/bin/java" >&2; exit 1; }

# what package scripts would have made
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
{"architecture":"$ARCH","os":"linux","config":{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin","JAVA_HOME=$JVM"]},"rootfs":{"type":"layers","diff_ids":["sha256:$debian","sha256:$releases"]},"history":[{"created_by":"deploy/scripts/build-image-base.sh: Debian $SUITE $(ls "$APT/archives/"*.deb | wc -l) packages, a JRE jlinked from ${JDK_PACKAGES[*]}"},{"created_by":"deploy/scripts/build-image-base.sh: etcd ${VERSIONS[*]}"}]}
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
# What the base holds, for the image's SBOM (deploy/image/image_sbom.py): each Debian package (those the JRE was
# jlinked from too) as a package URL, and each etcd binary with what fetch-etcd.sh built it from, its place and SHA-256.
{
  for deb in "$APT/archives/"*.deb "$WORK/jdk/debs/"*.deb; do
    dpkg-deb --showformat='${Package}\t${Version}\t${Architecture}\n' -W "$deb" | while IFS=$'\t' read -r name version arch; do
      printf 'deb\tpkg:deb/debian/%s@%s?arch=%s&distro=%s\t%s\t%s\n' \
        "$name" "$(sed 's/:/%3A/g; s/+/%2B/g' <<<"$version")" "$arch" "$SUITE" "$name" "$version"
    done
  done
  for v in "${VERSIONS[@]}"; do
    while IFS=$'\t' read -r tool purl; do
      path="/opt/etcd-runbooks/releases/$v/bin/$tool"
      printf 'file\t%s\t%s\t%s\t%s\t%s\n' "$purl" "$tool" "$v" "$path" "$(sha256sum <"$REL/$v/bin/$tool" | cut -d' ' -f1)"
    done <"$CACHE/etcd/$v/source.tsv"
  done
} >"$OUT.components.tsv"
rm -f "$OUT.packages"
rm -rf "$WORK/root" "$WORK/releases" "$WORK/layers" "$WORK/jdk"
echo "image base: $OUT ($(du -h "$OUT" | cut -f1); Debian $SUITE packages: $(ls "$APT/archives/"*.deb | wc -l), JRE modules: $MODULES; etcd ${VERSIONS[*]})"
