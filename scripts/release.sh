#!/usr/bin/env bash
# The release recipe (docs/release.md): the image for linux/amd64 and linux/arm64, both npm
# packages and the modules of Python, Java and Go, all of one version. Every run proves what it
# would publish before anything leaves the machine (versions, images, packages, then the images
# started in a clean engine of its own); only a run without --dry-run goes on to publish.
#
#   bash scripts/release.sh --dry-run [--out DIR]          # all but publishing; needs root (dockerd)
#   REGISTRY=ghcr.io/acme bash scripts/release.sh          # a clean tree, logged in to each
#
# --out keeps the artifacts in DIR. ARCHES (default "amd64 arm64") narrows the run; IMAGE names the
# local repository as for `npm run image`, whose tags this rebuilds. Every wait is bounded.
set -euo pipefail

dry_run=false out=
while [ $# -gt 0 ]; do
  case $1 in
    --dry-run) dry_run=true ;;
    --out) out=${2:?--out needs a folder} && shift ;;
    *) echo "release: unknown argument $1 (--dry-run, --out DIR)" >&2 && exit 2 ;;
  esac
  shift
done
[ -n "$out" ] && mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."

DOCKER=${DOCKER:-$([ -x /usr/bin/docker ] && echo /usr/bin/docker || echo docker)}
export DOCKER DOCKER_BUILDKIT=1
docker=$DOCKER
read -r -a arches <<<"${ARCHES:-amd64 arm64}"
# The name scripts/build-image.sh tags; the per-arch tags are <repository>:<version>-<arch>.
export IMAGE=${IMAGE:-animal-store-sandbox:local}
repository=${IMAGE%:*}
version=$(node -p "require('./package.json').version")

step() { echo "release: $*" >&2; }
fail() { echo "release: $*" >&2 && exit 1; }

work=$(mktemp -d /tmp/animal-store-release.XXXXXX)
artifacts=${out:-$work}
engine_pid=
cleanup() {
  [ -n "$engine_pid" ] && stop_engine
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# --- 1. versions ---------------------------------------------------------------------------------
module_version=$(node -p "require('./modules/node/package.json').version")
[ "$module_version" = "$version" ] ||
  fail "modules/node is at $module_version, the server at $version: both packages are released together"
python_version=$(sed -nE 's/^version = "(.*)"$/\1/p' modules/python/pyproject.toml)
[ "$python_version" = "$version" ] || fail "modules/python is at $python_version, the server at $version"
java_version=$(python3 -c 'import sys, xml.etree.ElementTree as x
print(x.parse(sys.argv[1]).getroot().findtext("{http://maven.apache.org/POM/4.0.0}version"))' modules/java/pom.xml)
[ "$java_version" = "$version" ] || fail "modules/java is at $java_version, the server at $version"
go_version=$(sed -nE 's/^\tVersion = "(.*)"$/\1/p' modules/go/animalstore/animalstore.go)
[ "$go_version" = "$version" ] || fail "modules/go is at ${go_version:-no version} (animalstore.Version), the server at $version"
chart=deploy/helm/animal-store-sandbox/Chart.yaml
chart_version=$(sed -nE 's/^version: (.*)$/\1/p' "$chart")
chart_app_version=$(sed -nE 's/^appVersion: "(.*)"$/\1/p' "$chart")
[ "$chart_version" = "$version" ] && [ "$chart_app_version" = "$version" ] ||
  fail "$chart is at version $chart_version, appVersion $chart_app_version (the image tag), the server at $version"
go_module=github.com/animal-store/animal-store-sandbox/modules/go
go_tag=modules/go/v$version
if ! $dry_run; then
  [ -n "${REGISTRY:-}" ] || fail "REGISTRY (for example ghcr.io/acme) names where the image is pushed"
  [ -z "$(git status --porcelain 2>/dev/null)" ] || fail "the working tree has changes: release from a clean commit"
fi
step "version $version, architectures ${arches[*]}$($dry_run && echo ' (dry run)')"
host_arch=$("$docker" version --format '{{.Server.Arch}}')

# --- emulation -----------------------------------------------------------------------------------
# A container of a foreign architecture runs through qemu-user-static, registered in binfmt_misc
# with the fix-binary flag (F): the kernel opens the emulator once, at registration, so it works
# inside containers that have no emulator of their own.
qemu_name() { case $1 in amd64) echo qemu-x86_64 ;; arm64) echo qemu-aarch64 ;; esac; }
ensure_emulation() {
  local name binfmt=/proc/sys/fs/binfmt_misc
  name=$(qemu_name "$1")
  [ -e "$binfmt/register" ] || mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null ||
    fail "binfmt_misc is not mounted and cannot be (needs root): linux/$1 cannot run here"
  if [ ! -e "$binfmt/$name" ]; then
    [ -f "/usr/lib/binfmt.d/$name.conf" ] ||
      fail "no emulator for linux/$1: install Debian's qemu-user-static (.ci/run installs it)"
    cat "/usr/lib/binfmt.d/$name.conf" >"$binfmt/register" || fail "cannot register $name in binfmt_misc (needs root)"
  fi
  grep -qx enabled "$binfmt/$name" || fail "$name is registered in binfmt_misc but disabled"
  grep -qE '^flags: .*F' "$binfmt/$name" ||
    fail "$name is registered without the fix-binary flag (F): containers would not find the emulator"
}

# --- 2. images -----------------------------------------------------------------------------------
images=()
for arch in "${arches[@]}"; do
  step "building $repository:$version-$arch"
  ARCH=$arch timeout 1800 bash scripts/build-image.sh --quiet >/dev/null
  images+=("$repository:$version-$arch")
done

# --- 3. packages ---------------------------------------------------------------------------------
# check_package DIR REQUIRED... -- FORBIDDEN...: `npm publish --dry-run` of the package in DIR
# (its prepare/prepack build included); every REQUIRED file is in it and no path starts with a
# FORBIDDEN prefix. The file list is kept as npm-<name>.json.
check_package() {
  local dir=$1 name listing
  shift
  name=$(node -p "require('./$dir/package.json').name")
  listing="$artifacts/npm-$name.json"
  step "npm publish --dry-run of $name"
  (cd "$dir" && timeout 600 npm publish --dry-run --json --access public 2>"$work/npm-$name.log") >"$listing" ||
    { tail -20 "$work/npm-$name.log" >&2 && fail "npm publish --dry-run of $name failed"; }
  node - "$listing" "$name" "$version" "$@" <<'CHECK'
const [listing, name, version, ...rules] = process.argv.slice(2)
const split = rules.indexOf('--')
const required = rules.slice(0, split)
const forbidden = rules.slice(split + 1)
const pack = JSON.parse(require('node:fs').readFileSync(listing, 'utf8'))[name]
if (pack?.version !== version) throw new Error(`${name}: the dry run packed version ${pack?.version}, not ${version}`)
const files = pack.files.map((file) => file.path)
const missing = required.filter((path) => !files.includes(path))
const stray = files.filter((path) => forbidden.some((prefix) => path.startsWith(prefix)))
if (missing.length || stray.length)
  throw new Error(`${name}: missing ${missing.join(', ') || 'nothing'}; should not ship ${stray.join(', ') || 'nothing'}`)
console.error(`release: ${name}@${version}: ${files.length} files, ${pack.size} bytes packed`)
CHECK
}
check_package modules/node package.json dist/index.js dist/index.d.ts dist/client.js dist/client.d.ts -- src/ test/
check_package . package.json README.md dist/cli.js dist/index.js dist/healthcheck.js spec/openapi.yaml \
  fixtures/pets.json modules/node/package.json modules/node/dist/index.js modules/node/dist/client.js \
  -- src/ test/ scripts/ modules/node/src/ modules/java/ modules/python/ modules/go/

# The modules of the other languages, built as they are published, into $artifacts.
step "python -m build of modules/python"
rm -rf "$artifacts/python"
python3 -m venv "$work/python" && "$work/python/bin/pip" install -q --disable-pip-version-check build twine ||
  fail "cannot install build and twine into a virtual environment"
timeout 600 "$work/python/bin/python" -m build --outdir "$artifacts/python" modules/python >"$work/python-build.log" 2>&1 ||
  { tail -20 "$work/python-build.log" >&2 && fail "python -m build of modules/python failed"; }
"$work/python/bin/twine" check --strict "$artifacts/python"/* >&2
step "mvn -Prelease verify of modules/java (unsigned)"
(cd modules/java && timeout 900 mvn -B -q -Prelease -DskipTests -Dgpg.skip verify) >"$work/java-build.log" 2>&1 ||
  { tail -20 "$work/java-build.log" >&2 && fail "mvn -Prelease verify of modules/java failed"; }
mkdir -p "$artifacts/java" && cp modules/java/pom.xml modules/java/target/animal-store-testcontainers-"$version"*.jar "$artifacts/java/"
step "go mod verify of modules/go"
[ "$(cd modules/go && go list -m)" = "$go_module" ] || fail "modules/go is not the module $go_module"
(cd modules/go && timeout 600 go mod verify >&2) || fail "go mod verify of modules/go failed"
! git rev-parse -q --verify "refs/tags/$go_tag" >/dev/null || fail "the tag $go_tag exists already"

# --- 4. proof in a clean engine -------------------------------------------------------------------
for arch in "${arches[@]}"; do [ "$arch" = "$host_arch" ] || ensure_emulation "$arch"; done

step "docker save ${images[*]}"
timeout 600 "$docker" save -o "$artifacts/images.tar" "${images[@]}"

# A Docker engine of its own, empty: everything it runs comes from the tarball. It lives in a
# network namespace of its own (loopback only, no bridge, no iptables): a dockerd without a bridge
# deletes any docker0 it sees, and the machine's engine owns that one. Its containers use that
# namespace's network; the probes enter it (nsenter) to reach them.
engine_dir=$(mktemp -d /tmp/asr-engine.XXXXXX)
engine=("$docker" --host "unix://$engine_dir/docker.sock")
start_engine() {
  mkdir -p "$engine_dir"/{data,exec}
  unshare --net -- bash -c 'ip link set lo up && exec "$@"' engine \
    dockerd --data-root "$engine_dir/data" --exec-root "$engine_dir/exec" --pidfile "$engine_dir/dockerd.pid" \
    --host "unix://$engine_dir/docker.sock" --bridge=none --iptables=false --ip-masq=false \
    >"$artifacts/engine.log" 2>&1 &
  engine_pid=$!
  for _ in $(seq 1 120); do
    "${engine[@]}" info >/dev/null 2>&1 && return 0
    kill -0 "$engine_pid" 2>/dev/null || break
    sleep 0.5
  done
  tail -20 "$artifacts/engine.log" >&2
  fail "the clean engine did not come up"
}
in_engine_network() { nsenter --target "$engine_pid" --net -- "$@"; }
# Stops the engine by its PID (bounded), the containerd it started if it outlived it, unmounts
# what it left mounted under its folder, and removes the folder.
stop_engine() {
  local containerd_pid
  containerd_pid=$(cat "$engine_dir/exec/containerd/containerd.pid" 2>/dev/null || true)
  kill "$engine_pid" 2>/dev/null || true
  for _ in $(seq 1 80); do kill -0 "$engine_pid" 2>/dev/null || break; sleep 0.25; done
  kill -9 "$engine_pid" 2>/dev/null || true
  if [ -n "$containerd_pid" ] && kill -0 "$containerd_pid" 2>/dev/null; then kill -9 "$containerd_pid" || true; fi
  awk -v dir="$engine_dir/" 'index($2, dir) == 1 { print $2 }' /proc/mounts | sort -r | xargs -r umount -l
  rm -rf "$engine_dir"
  engine_pid=
}
step "starting a clean engine in $engine_dir"
start_engine
step "docker load into the clean engine"
timeout 600 "${engine[@]}" load -q -i "$artifacts/images.tar" >&2

# What Node inside the image reports: its architecture and any compiled addon in node_modules
# (there must be none: the build stages install for the build platform, not the target's).
probe='const fs = require("node:fs")
const addons = fs.readdirSync("node_modules", { recursive: true }).filter((file) => String(file).endsWith(".node"))
console.log(JSON.stringify({ processArch: process.arch, addons }))'
key=release-check-key
reports=()
for arch in "${arches[@]}"; do
  image=$repository:$version-$arch
  node_arch=$([ "$arch" = amd64 ] && echo x64 || echo arm64)
  architecture=$("${engine[@]}" image inspect --format '{{.Architecture}}' "$image")
  size=$("${engine[@]}" image inspect --format '{{.Size}}' "$image")
  [ "$architecture" = "$arch" ] || fail "$image is for $architecture, not $arch"
  seen=$(timeout 120 "${engine[@]}" run --rm --platform "linux/$arch" --network none --entrypoint node "$image" -e "$probe")
  [ "$(node -p 'JSON.parse(process.argv[1]).processArch' "$seen")" = "$node_arch" ] ||
    fail "$image: node reports $seen, expected process.arch $node_arch"
  [ "$(node -p 'JSON.parse(process.argv[1]).addons.length' "$seen")" = 0 ] || fail "$image holds native addons: $seen"

  started=$(date +%s%N)
  container=$("${engine[@]}" run -d --platform "linux/$arch" --network host \
    -e HOST=127.0.0.1 -e PORT=4010 -e API_KEYS=$key -e SEED=7 -e DATA_FILE=:memory: "$image")
  healthy=
  for _ in $(seq 1 900); do # 90 s: under emulation the start is several times slower
    if in_engine_network curl -fs --max-time 2 -o /dev/null http://127.0.0.1:4010/healthz; then healthy=$(date +%s%N) && break; fi
    sleep 0.1
  done
  [ -n "$healthy" ] || { "${engine[@]}" logs "$container" >&2; fail "$image did not answer /healthz within 90 s"; }
  url="http://127.0.0.1:4010/v1/pets?limit=5"
  unkeyed=$(in_engine_network curl -s --max-time 10 -o /dev/null -w '%{http_code}' "$url")
  keyed=$(in_engine_network curl -s --max-time 10 -o "$work/pets-$arch.json" -w '%{http_code}' -H "Authorization: Bearer $key" "$url")
  "${engine[@]}" rm -f "$container" >/dev/null
  [ "$unkeyed" = 401 ] || fail "$image: GET /v1/pets without the key answered $unkeyed, not 401"
  [ "$keyed" = 200 ] || fail "$image: GET /v1/pets with the key answered $keyed, not 200"
  reports+=("$(node - "$arch" "$architecture" "$size" "$((($healthy - started) / 1000000))" "$seen" "$work/pets-$arch.json" <<'REPORT'
const [arch, architecture, size, healthyMs, seen, petsFile] = process.argv.slice(2)
const body = require('node:fs').readFileSync(petsFile, 'utf8')
const pets = JSON.parse(body)
if (!Array.isArray(pets) || pets.length === 0) throw new Error(`linux/${arch}: the keyed list is not a list of pets: ${body}`)
console.log(JSON.stringify({
  arch, architecture, sizeBytes: Number(size), healthySeconds: Number(healthyMs) / 1000, ...JSON.parse(seen),
  pets: pets.length, petsSha256: require('node:crypto').createHash('sha256').update(body).digest('hex'),
}))
REPORT
  )")
  step "linux/$arch: $(node -p 'const r = JSON.parse(process.argv[1]); `${(r.sizeBytes / 1e6).toFixed(1)} MB, healthy after ${r.healthySeconds} s, process.arch ${r.processArch}, ${r.pets} pets`' "${reports[-1]}")"
done
stop_engine
# One seed, one answer: every architecture lists the same pets, byte for byte.
printf '%s\n' "${reports[@]}" | node -e '
const reports = require("fs").readFileSync(0, "utf8").trim().split("\n").map((line) => JSON.parse(line))
if (new Set(reports.map((r) => r.petsSha256)).size !== 1) throw new Error("the architectures list different pets for one seed")
require("fs").writeFileSync(process.argv[1], JSON.stringify({ version: process.argv[2], images: reports }, null, 2) + "\n")
' "$artifacts/report.json" "$version"

if $dry_run; then
  step "dry run complete: nothing was pushed or published${out:+ (artifacts in $out)}"
  exit 0
fi

# --- 5. publish ----------------------------------------------------------------------------------
target=${REGISTRY%/}/animal-store-sandbox
refs=()
for arch in "${arches[@]}"; do
  "$docker" tag "$repository:$version-$arch" "$target:$version-$arch"
  step "pushing $target:$version-$arch"
  timeout 1800 "$docker" push "$target:$version-$arch"
  refs+=("$target:$version-$arch")
done
step "manifest list $target:$version"
"$docker" manifest rm "$target:$version" >/dev/null 2>&1 || true
"$docker" manifest create "$target:$version" "${refs[@]}"
for arch in "${arches[@]}"; do
  "$docker" manifest annotate --os linux --arch "$arch" "$target:$version" "$target:$version-$arch"
done
timeout 600 "$docker" manifest push --purge "$target:$version"

step "npm publish of the module, then the server"
(cd modules/node && timeout 600 npm publish --access public)
timeout 600 npm publish --access public
step "twine upload of the Python module to PyPI"
"$work/python/bin/twine" upload --non-interactive "$artifacts/python"/*
step "mvn -Prelease deploy of the Java module to Maven Central"
(cd modules/java && timeout 1800 mvn -B -Prelease -DskipTests deploy)
step "tag $go_tag for the Go module"
git tag "$go_tag" && git push origin "$go_tag"
step "released $version: $target:$version (${arches[*]}), both npm packages, PyPI, Maven Central and $go_tag"
