#!/usr/bin/env bash
# `npm run image`: builds the sandbox image, tagged animal-store-sandbox:local (IMAGE to change it)
# and animal-store-sandbox:<package version>, the tag the Testcontainers modules default to.
# The base is NODE_IMAGE when set, else the official default when it is present or can be pulled,
# else a local base made by scripts/build-base-image.sh without any registry. A CA bundle named by
# NODE_EXTRA_CA_CERTS reaches npm in the build as a BuildKit secret, never as a layer.
set -euo pipefail
cd "$(dirname "$0")/.."

image=${IMAGE:-animal-store-sandbox:local}
default_base=$(sed -nE 's/^ARG NODE_IMAGE=(.+)$/\1/p' Dockerfile)
local_base=animal-store-node:24-local
# Debian's client has the BuildKit support the build needs; prefer it over another docker on PATH.
DOCKER=${DOCKER:-$([ -x /usr/bin/docker ] && echo /usr/bin/docker || echo docker)}
docker=$DOCKER
export DOCKER DOCKER_BUILDKIT=1

base=${NODE_IMAGE:-}
if [ -z "$base" ]; then
  if "$docker" image inspect "$default_base" >/dev/null 2>&1 || "$docker" pull -q "$default_base" >/dev/null 2>&1; then
    base=$default_base
  else
    echo "image: cannot pull $default_base, using the local base $local_base" >&2
    "$docker" image inspect "$local_base" >/dev/null 2>&1 || bash scripts/build-base-image.sh "$local_base"
    base=$local_base
  fi
fi

secret=()
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  secret=(--secret "id=ca,src=$NODE_EXTRA_CA_CERTS")
fi

version=$(node -p "require('./package.json').version")
versioned=${image%:*}:$version
echo "image: building $image and $versioned on $base" >&2
"$docker" build --build-arg "NODE_IMAGE=$base" "${secret[@]}" -t "$image" -t "$versioned" "$@" .
