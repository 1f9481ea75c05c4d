#!/usr/bin/env bash
# `npm run image`: builds the sandbox image for this machine's architecture, tagged
# animal-store-sandbox:local (IMAGE to change it), animal-store-sandbox:<package version> (the tag
# the Testcontainers modules default to) and :<version>-<arch>. With ARCH=arm64 (or amd64) set to
# the other architecture, it builds that one, tagged :<version>-<arch> only, without emulation.
#
# The base is NODE_IMAGE when set, else the official default when it is present or can be pulled,
# else local bases made by scripts/build-base-image.sh without any registry (the target's for the
# runtime stage, this machine's for the build stages). A CA bundle named by NODE_EXTRA_CA_CERTS
# reaches npm in the build as a BuildKit secret, never as a layer.
set -euo pipefail
cd "$(dirname "$0")/.."

image=${IMAGE:-animal-store-sandbox:local}
default_base=$(sed -nE 's/^ARG NODE_IMAGE=(.+)$/\1/p' Dockerfile)
# Debian's client has the BuildKit support the build needs; prefer it over another docker on PATH.
DOCKER=${DOCKER:-$([ -x /usr/bin/docker ] && echo /usr/bin/docker || echo docker)}
docker=$DOCKER
export DOCKER DOCKER_BUILDKIT=1

host_arch=$("$docker" version --format '{{.Server.Arch}}')
arch=${ARCH:-$host_arch}

# local_base ARCH: the registry-free Node base of that architecture, made once.
local_base() {
  local tag=animal-store-node:24-local-$1
  "$docker" image inspect "$tag" >/dev/null 2>&1 || ARCH=$1 bash scripts/build-base-image.sh "$tag"
  echo "$tag"
}

if [ -n "${NODE_IMAGE:-}" ]; then
  base=$NODE_IMAGE build_base=${BUILD_NODE_IMAGE:-$NODE_IMAGE}
elif [ "$("$docker" image inspect --format '{{.Architecture}}' "$default_base" 2>/dev/null)" = "$arch" ] ||
  "$docker" pull -q --platform "linux/$arch" "$default_base" >/dev/null 2>&1; then
  base=$default_base build_base=$default_base
else
  echo "image: cannot pull $default_base, using local bases" >&2
  base=$(local_base "$arch") build_base=$(local_base "$host_arch")
fi

secret=()
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  secret=(--secret "id=ca,src=$NODE_EXTRA_CA_CERTS")
fi

version=$(node -p "require('./package.json').version")
repository=${image%:*}
tags=("$repository:$version-$arch")
platform=()
if [ "$arch" = "$host_arch" ]; then
  tags=("$image" "$repository:$version" "${tags[@]}")
else
  platform=(--platform "linux/$arch")
fi
echo "image: building ${tags[*]} for linux/$arch on $base" >&2
"$docker" build "${platform[@]}" --build-arg "NODE_IMAGE=$base" --build-arg "BUILD_NODE_IMAGE=$build_base" "${secret[@]}" \
  "${tags[@]/#/--tag=}" "$@" .
