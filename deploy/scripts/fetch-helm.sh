#!/usr/bin/env bash
# Fetches what checks the Helm chart (deploy/helm/etcd-runbooks), all from the Go module proxy, into the project's cache:
# - helm and kubeconform, built from the small module deploy/helm-tools (its go.mod pins helm.sh/helm/v3 and
#   github.com/yannh/kubeconform as tools, its go.sum every module) -> $CACHE/helm-tools/<helm>-<kubeconform>/bin;
# - Kubernetes' JSON schemas for kubeconform, made from the OpenAPI document of the k8s.io/kubernetes module of each
#   Kubernetes release below (api/openapi-spec/swagger.json) and the Prometheus operator's ServiceMonitor CRD
#   (jsonnet/prometheus-operator/servicemonitors-crd.json), each module pinned by its go.sum hash, converted by
#   deploy/scripts/kubernetes-schemas.py -> $CACHE/kubernetes-schemas/v<version>/{loose,strict}/<kind>-<group>-<version>.json.
# kubeconform never downloads a schema: HelmChartTest points it at this directory.
# Idempotent: binaries that answer with their pinned versions and schemas made from the same pins are kept.
set -euo pipefail

# Kubernetes releases the chart is validated against (oldest and newest supported), and the hash of each module
K8S_MODULES=(
  "1.31.14 h1:UtjLfqvXLuSVDdJ4+NpQCIfFkKkLnAAVmxAEMsnkhjk="
  "1.35.4 h1:o/8dBC/pHVpYoGV4OAIytAlNPZbdYVTXJHoYvXC4qzM="
)
PROMETHEUS_OPERATOR="v0.85.0 h1:M5xLCLEoaW2IJfnuCwFzzpL+jSVQu3KGT84Pye+fW8s="

CACHE="${ETCD_RUNBOOKS_CACHE:-$HOME/.cache/etcd-runbooks}"
here="$(cd "$(dirname "$0")" && pwd)"
module="$here/../helm-tools"
converter="$here/kubernetes-schemas.py"

command -v go >/dev/null || { echo "fetch-helm.sh: building helm and kubeconform needs the go command (Go 1.26+), which is not on PATH." >&2; exit 1; }
proxy="$(go env GOPROXY)"
if [ "$proxy" = off ]; then
  echo "fetch-helm.sh: GOPROXY=off, but helm, kubeconform and the Kubernetes schemas come from the Go module proxy." >&2
  echo "Set GOPROXY to a proxy that serves helm.sh/helm/v3, github.com/yannh/kubeconform and k8s.io/kubernetes (https://proxy.golang.org)." >&2
  exit 1
fi
proxy_failed() { # what, log file
  echo "fetch-helm.sh: $1 from the Go module proxy ($proxy) failed:" >&2
  tail -n 20 "$2" >&2
  echo "If modules could not be downloaded, this machine must reach $proxy (or set GOPROXY to one that serves them)." >&2
  exit 1
}

tool_version() { awk -v m="$1" '$1 == m && $2 ~ /^v/ { print $2 }' "$module/go.mod"; }
helm_version="$(tool_version helm.sh/helm/v3)"
kubeconform_version="$(tool_version github.com/yannh/kubeconform)"
[ -n "$helm_version" ] && [ -n "$kubeconform_version" ] || { echo "fetch-helm.sh: $module/go.mod does not pin helm.sh/helm/v3 and github.com/yannh/kubeconform" >&2; exit 1; }
bin="$CACHE/helm-tools/$helm_version-$kubeconform_version/bin"
answers() {
  [ -x "$bin/helm" ] && [ -x "$bin/kubeconform" ] \
    && [ "$("$bin/helm" version --template '{{.Version}}' 2>/dev/null)" = "$helm_version" ] \
    && [ "$("$bin/kubeconform" -v 2>/dev/null)" = "$kubeconform_version" ]
}
if answers; then
  echo "helm $helm_version, kubeconform $kubeconform_version: cached in $bin"
else
  tmp="$bin.tmp.$$"; log="$tmp.log"
  rm -rf "$tmp"; mkdir -p "$tmp"
  echo "helm $helm_version, kubeconform $kubeconform_version: building from the Go module proxy ($proxy)"
  # -mod=readonly: the committed go.sum must already hold every module, so nothing unpinned is fetched
  if ! (cd "$module" && GOFLAGS=-mod=readonly CGO_ENABLED=0 go build -trimpath \
      -ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version -X main.version=$kubeconform_version" \
      -o "$tmp/" helm.sh/helm/v3/cmd/helm github.com/yannh/kubeconform/cmd/kubeconform) >"$log" 2>&1; then
    rm -rf "$tmp"; proxy_failed "building helm and kubeconform" "$log"
  fi
  rm -f "$log"; rm -rf "$bin"; mv "$tmp" "$bin"
  answers || { echo "fetch-helm.sh: the binaries in $bin do not answer $helm_version and $kubeconform_version" >&2; exit 1; }
  echo "helm $helm_version, kubeconform $kubeconform_version: built in $bin"
fi

download() { # module@version expected-hash -> prints the module's directory
  local out log="$CACHE/kubernetes-schemas/download.$$.log" dir sum
  mkdir -p "$CACHE/kubernetes-schemas"
  # outside any module, so that only this module is asked for; go checks it against the checksum database too
  if ! out="$(cd "$CACHE/kubernetes-schemas" && GOFLAGS=-mod=mod go mod download -json "$1" 2>"$log")"; then
    echo "$out" >>"$log"; proxy_failed "downloading $1" "$log"
  fi
  rm -f "$log"
  dir="$(sed -n 's/^\t"Dir": "\(.*\)",$/\1/p' <<<"$out")"
  sum="$(sed -n 's/^\t"Sum": "\(.*\)",$/\1/p' <<<"$out")"
  [ "$sum" = "$2" ] || { echo "fetch-helm.sh: $1 has the hash $sum, not the pinned $2: refusing it" >&2; exit 1; }
  echo "$dir"
}

read -r operator_version operator_sum <<<"$PROMETHEUS_OPERATOR"
stamp_of() { echo "$1 $2 $operator_version $operator_sum $(sha256sum "$converter" | cut -d' ' -f1)"; }
for entry in "${K8S_MODULES[@]}"; do
  read -r version sum <<<"$entry"
  dest="$CACHE/kubernetes-schemas/v$version"
  if [ -f "$dest/stamp" ] && [ "$(cat "$dest/stamp")" = "$(stamp_of "$version" "$sum")" ]; then
    echo "Kubernetes $version schemas: cached in $dest"; continue
  fi
  tmp="$dest.tmp.$$"; rm -rf "$tmp"
  api="$(download "k8s.io/kubernetes@v$version" "$sum")"
  operator="$(download "github.com/prometheus-operator/prometheus-operator@$operator_version" "$operator_sum")"
  python3 "$converter" api "$api/api/openapi-spec/swagger.json" "$tmp"
  python3 "$converter" crd "$operator/jsonnet/prometheus-operator/servicemonitors-crd.json" "$tmp"
  stamp_of "$version" "$sum" >"$tmp/stamp"
  rm -rf "$dest"; mv "$tmp" "$dest"
  echo "Kubernetes $version schemas: made in $dest"
done
