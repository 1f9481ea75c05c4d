#!/usr/bin/env bash
# Builds minimal stand-ins for the official `postgres` and `haproxy` images that deploy/compose.yaml
# names, without any registry (test/container/compose.test.ts, docs/deploy.md): from this machine's
# Debian packages `postgresql` and `haproxy`, each a `FROM scratch` image of a root holding the
# programs, the shared libraries `ldd` names, their share files and the official images' users.
# For what compose.yaml uses they behave as the official images do:
#   postgres  an empty PGDATA gets a cluster with POSTGRES_USER (superuser), POSTGRES_PASSWORD and
#             POSTGRES_DB, password logins from any address; pg_isready; stops on SIGINT. It starts
#             as the postgres user (999), not root: a bind-mounted data folder must be writable by it.
#   haproxy   `haproxy -W -db -f /usr/local/etc/haproxy/haproxy.cfg` as the haproxy user (99).
# The versions are Debian's (PostgreSQL 15, HAProxy 2.6), not the official images' defaults.
#
# Usage: scripts/build-local-images.sh [POSTGRES_TAG [HAPROXY_TAG]]
#   (default animal-store-postgres:local and animal-store-haproxy:local)
set -euo pipefail

docker=${DOCKER:-docker}
postgres_tag=${1:-animal-store-postgres:local}
haproxy_tag=${2:-animal-store-haproxy:local}

pg_bin=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -1)
[ -x "$pg_bin/postgres" ] || { echo "local images: PostgreSQL is not installed (Debian package postgresql)" >&2 && exit 1; }
pg_major=$(basename "$(dirname "$pg_bin")")
[ -x /usr/sbin/haproxy ] || { echo "local images: HAProxy is not installed (Debian package haproxy)" >&2 && exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# copy_program ROOT FILE [TARGET]: the ELF file at TARGET (default its own path) in ROOT, with the
# program interpreter and every shared library ldd names (ldd lists those they need too), as files
# at their own paths.
copy_program() {
  local root=$1 file=$2 target=${3:-$2} library
  mkdir -p "$root$(dirname "$target")" && cp -L "$file" "$root$target"
  if ldd "$file" | grep -q 'not found'; then
    echo "local images: a library $file needs is missing:" >&2 && ldd "$file" | grep 'not found' >&2 && exit 1
  fi
  for library in $(ldd "$file" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
    [ -e "$root$library" ] || { mkdir -p "$root$(dirname "$library")" && cp -L "$library" "$root$library"; }
  done
}

# new_root NAME USER UID: a root with /tmp, a passwd/group of root and USER (UID:UID), and name lookup
# through files and DNS (glibc's built-in modules), as a container's /etc/hosts and resolv.conf give them.
new_root() {
  local root="$work/$1"
  mkdir -p "$root"/{etc,tmp}
  chmod 1777 "$root/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\n%s:x:%s:%s::/var/lib/%s:/sbin/nologin\n' "$2" "$3" "$3" "$2" >"$root/etc/passwd"
  printf 'root:x:0:\n%s:x:%s:\n' "$2" "$3" >"$root/etc/group"
  echo 'hosts: files dns' >"$root/etc/nsswitch.conf"
  echo "$root"
}

# build_image ROOT TAG: ROOT as an image (ADD of a tarball keeps owners and modes) with the Dockerfile
# lines on stdin after `FROM scratch` and `ADD`.
build_image() {
  mkdir -p "$work/context-$2"
  tar -C "$1" --numeric-owner -cf "$work/context-$2/root.tar" .
  { printf 'FROM scratch\nADD root.tar /\n' && cat; } | DOCKER_BUILDKIT=1 "$docker" build --quiet --tag "$2" -f - "$work/context-$2" >/dev/null
}

# --- PostgreSQL ---------------------------------------------------------------------------------
root=$(new_root postgres postgres 999)
# initdb starts `postgres` through /bin/sh (popen), and the entrypoint is a script: dash is the shell.
copy_program "$root" /usr/bin/dash /bin/sh
for program in postgres initdb pg_isready psql; do copy_program "$root" "$pg_bin/$program"; done
# initdb asks `locale -a` for the collations to import: C.UTF-8's, as a collation to choose.
copy_program "$root" /usr/bin/locale
mkdir -p "$root/usr/lib/locale" && cp -a /usr/lib/locale/C.utf8 "$root/usr/lib/locale/"
# The modules a server loads (plpgsql, the text search dictionaries, encoding conversions), but
# not the JIT provider, which would bring LLVM (over 100 MB); without it the server runs without JIT.
for module in "/usr/lib/postgresql/$pg_major/lib"/*.so; do
  case $module in */llvmjit.so) ;; *) copy_program "$root" "$module" ;; esac
done
mkdir -p "$root/usr/share/postgresql"
cp -a "/usr/share/postgresql/$pg_major" "$root/usr/share/postgresql/" && rm -rf "$root/usr/share/postgresql/$pg_major/man"
# Debian's build reads time zones from the system's database.
mkdir -p "$root/usr/share" && cp -a /usr/share/zoneinfo "$root/usr/share/"
mkdir -p "$root/var/lib/postgresql/data" "$root/var/run/postgresql" "$root/usr/local/bin"
chown -R 999:999 "$root/var/lib/postgresql" "$root/var/run/postgresql"
chmod 700 "$root/var/lib/postgresql/data" && chmod 2775 "$root/var/run/postgresql"
cat >"$root/usr/local/bin/docker-entrypoint.sh" <<'ENTRYPOINT'
#!/bin/sh
# An empty data folder gets a cluster as the official image makes it: the superuser POSTGRES_USER
# with the password POSTGRES_PASSWORD, the database POSTGRES_DB, password logins from anywhere.
set -eu
case ${1:-} in -*) set -- postgres "$@" ;; esac
if [ "${1:-}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?must be set: the superuser's password}"
  user=${POSTGRES_USER:-postgres}
  database=${POSTGRES_DB:-$user}
  printf '%s\n' "$POSTGRES_PASSWORD" |
    initdb --username="$user" --pwfile=/dev/stdin --auth-local=trust --auth-host=scram-sha-256 \
      --encoding=UTF8 --no-locale >/dev/null
  # Single-user mode runs as the bootstrap superuser, before any client can connect.
  if [ "$database" != postgres ]; then
    echo "CREATE DATABASE \"$database\"" | postgres --single -D "$PGDATA" postgres >/dev/null
  fi
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  echo "docker-entrypoint.sh: made the cluster, user $user, database $database"
fi
exec "$@"
ENTRYPOINT
chmod 755 "$root/usr/local/bin/docker-entrypoint.sh"
version=$("$pg_bin/postgres" --version | awk '{ print $3 }')
build_image "$root" "$postgres_tag" <<DOCKERFILE
ENV PATH=/usr/local/bin:$pg_bin:/usr/bin:/bin PGDATA=/var/lib/postgresql/data
USER 999:999
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
LABEL org.opencontainers.image.description="PostgreSQL $version from Debian's package on a minimal root, built without a registry"
DOCKERFILE
echo "local images: built $postgres_tag (PostgreSQL $version)" >&2

# --- HAProxy ------------------------------------------------------------------------------------
root=$(new_root haproxy haproxy 99)
copy_program "$root" /usr/sbin/haproxy /usr/local/sbin/haproxy
mkdir -p "$root/usr/local/etc/haproxy" "$root/var/lib/haproxy"
chown 99:99 "$root/var/lib/haproxy"
version=$(/usr/sbin/haproxy -v | awk 'NR == 1 { print $3 }')
build_image "$root" "$haproxy_tag" <<DOCKERFILE
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/bin:/bin
USER 99:99
STOPSIGNAL SIGUSR1
CMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]
LABEL org.opencontainers.image.description="HAProxy $version from Debian's package on a minimal root, built without a registry"
DOCKERFILE
echo "local images: built $haproxy_tag (HAProxy $version)" >&2
