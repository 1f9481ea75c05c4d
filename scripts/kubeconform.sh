#!/usr/bin/env bash
# kubeconform, strict and offline, with every argument: each manifest against the JSON schema of its
# apiVersion and kind in the Kubernetes API at a pinned version. The first run makes the schemas (a
# few minutes) into a cache kept between runs, from the API's OpenAPI document inside the
# k8s.io/kubernetes module (Go module proxy), converted by openapi2jsonschema-ng (PyPI) as
# kubeconform's own schemas are.
#
#   helm template sandbox deploy/helm/animal-store-sandbox | bash scripts/kubeconform.sh -summary -
set -euo pipefail

KUBECONFORM_VERSION=v0.8.0
KUBERNETES_VERSION=v1.37.2
OPENAPI2JSONSCHEMA_VERSION=0.9.0
cache="${XDG_CACHE_HOME:-$HOME/.cache}/animal-store-sandbox"
bin="$cache/kubeconform-$KUBECONFORM_VERSION"
schemas="$cache/kubernetes-schemas-$KUBERNETES_VERSION"

if [ ! -x "$bin/kubeconform" ]; then
  GOBIN="$bin" go install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION" >&2
fi

if [ ! -d "$schemas" ]; then
  mkdir -p "$cache"
  work=$(mktemp -d "$cache/.kubernetes-schemas.XXXXXX")
  trap 'rm -rf "$work"' EXIT # on a failure; exec below ends the script without it
  # Outside any module of the checkout, so that no go.mod or go.sum is touched.
  module=$(cd "$work" && go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')
  python3 -m venv "$work/venv" >&2
  "$work/venv/bin/pip" install -q "openapi2jsonschema-ng==$OPENAPI2JSONSCHEMA_VERSION" >&2
  echo "kubeconform.sh: making the Kubernetes $KUBERNETES_VERSION schemas into $schemas (a few minutes, once)" >&2
  # Relative output: the converter resolves its references against the working directory. A few
  # alpha types whose schemas refer to themselves fail to expand; the kinds in use do not.
  (cd "$work" && venv/bin/openapi2jsonschema --kubernetes --expanded --stand-alone --strict \
    -o schemas "$module/api/openapi-spec/swagger.json" >/dev/null)
  # Moved into place whole: an interrupted run leaves no half-made cache behind.
  mv "$work/schemas" "$schemas"
  rm -rf "$work"
fi

exec "$bin/kubeconform" -strict -schema-location "$schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$@"
