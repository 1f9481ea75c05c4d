# The Animal Store sandbox as a container. Every instruction is in exec form and no stage runs a
# shell, so the image builds on the official Node images and on a shell-less local base alike
# (scripts/build-base-image.sh makes one when no registry is reachable: `npm run image`).
#
# It builds for another architecture without emulation: the build stages run on the builder's own
# platform (their output, JavaScript and production node_modules without native modules, runs on
# any), and the runtime stage only copies files onto the target's base, with no RUN step.
#
#   docker build -t animal-store-sandbox:local .
#   docker build --platform linux/arm64 -t animal-store-sandbox:<version>-arm64 .
#   docker build --build-arg NODE_IMAGE=animal-store-node:24-local-amd64 \
#     --secret id=ca,src="$NODE_EXTRA_CA_CERTS" -t animal-store-sandbox:local .
#   docker build --platform linux/arm64 --build-arg NODE_IMAGE=animal-store-node:24-local-arm64 \
#     --build-arg BUILD_NODE_IMAGE=animal-store-node:24-local-amd64 -t animal-store-sandbox:<version>-arm64 .
ARG NODE_IMAGE=node:24-bookworm-slim
# The base of the build stages, on the build platform: NODE_IMAGE, unless it names a single-arch
# image of the target's (a local base), when this names one of the builder's architecture.
ARG BUILD_NODE_IMAGE=${NODE_IMAGE}

# --- build: all dependencies, TypeScript compiled to dist/ ---------------------------------------
FROM --platform=$BUILDPLATFORM ${BUILD_NODE_IMAGE} AS build
WORKDIR /app
# Behind a TLS-inspecting proxy, npm needs its CA: pass the bundle as the secret `ca`. Node reads
# it from this path; the secret is mounted only while npm runs and is never written to a layer.
ENV NODE_EXTRA_CA_CERTS=/run/secrets/ca
# npm's download cache lives in a BuildKit cache mount, outside every layer.
ENV npm_config_cache=/npm-cache
COPY package.json package-lock.json ./
# No install scripts: nothing the build or the server needs compiles anything natively.
RUN --mount=type=secret,id=ca --mount=type=cache,target=/npm-cache \
    ["node", "/usr/local/lib/node_modules/npm/bin/npm-cli.js", "ci", "--ignore-scripts", "--no-audit", "--no-fund"]
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY spec ./spec
COPY scripts/build.ts scripts/compile-spec.ts scripts/bundle-cli.ts ./scripts/
# The build of `npm run build` (scripts/build.ts): TypeScript to dist/, the specs with their
# validators precompiled (a faster cold start), and the command bundled into one file.
RUN ["node", "--import", "tsx", "scripts/build.ts", "--server-only"]
# An empty folder to become /data (the runtime stage cannot mkdir), writable by its group, which
# is group 0 in the runtime stage. It is copied as an entry of its parent folder: a COPY of a
# folder itself makes its target anew, without these mode bits.
WORKDIR /runtime-root/data
RUN ["node", "-e", "require('fs').chmodSync('/runtime-root/data', 0o775)"]

# --- production dependencies only ---------------------------------------------------------------
FROM --platform=$BUILDPLATFORM ${BUILD_NODE_IMAGE} AS prod-deps
WORKDIR /app
ENV NODE_EXTRA_CA_CERTS=/run/secrets/ca
ENV npm_config_cache=/npm-cache
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=ca --mount=type=cache,target=/npm-cache \
    ["node", "/usr/local/lib/node_modules/npm/bin/npm-cli.js", "ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund"]

# --- compile cache: the runtime's files started once, so that Node keeps their compiled code ------
# On the build platform, with the runtime stage's files at the runtime stage's paths (Node's cache
# is keyed by path). scripts/compile-cache.mjs leaves the cache empty for another architecture.
FROM --platform=$BUILDPLATFORM ${BUILD_NODE_IMAGE} AS compile-cache
ARG TARGETARCH
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY spec ./spec
COPY fixtures ./fixtures
COPY scripts/compile-cache.mjs /build/compile-cache.mjs
RUN ["node", "/build/compile-cache.mjs", "/app/.compile-cache"]

# --- runtime: compiled JS, production dependencies, spec and fixtures; non-root ----------------
# On the target platform. No RUN step here: building it for another architecture needs no emulator.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4010 \
    DATA_FILE=/data/db.json \
    LOG_LEVEL=info \
    API_KEYS= \
    SEED= \
    SEED_COUNT= \
    FIXTURES= \
    TLS_CA_OUT=/tmp/animal-store-ca.pem \
    NODE_COMPILE_CACHE=/app/.compile-cache
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY spec ./spec
COPY fixtures ./fixtures
# The V8 code of the modules a start loads (NODE_COMPILE_CACHE above): a first start skips their
# parsing and compiling.
COPY --from=compile-cache /app/.compile-cache ./.compile-cache
# The `node` user of the official images; numeric, so runAsNonRoot policies can verify it. /data
# belongs to group 0 too and is group-writable: a platform that runs the image as an arbitrary user
# in group 0 (OpenShift) can write the data file. No VOLUME: a run that does not ask for a data
# volume (-v name:/data) leaves none behind.
COPY --from=build --chown=1000:0 /runtime-root/ /
USER 1000:1000
EXPOSE 4010
# Every 30 s: each check starts a node process (about 0.1 s of CPU), so an idle container stays
# well under 1% of a core. Test tools wait over HTTP instead (the Testcontainers modules turn this
# off); compose can ask for a faster interval for its depends_on (see the README).
HEALTHCHECK --interval=30s --timeout=3s --start-period=30s --retries=3 \
    CMD ["node", "dist/healthcheck.js"]
# Node is PID 1 and handles SIGTERM/SIGINT itself (clean stop, data flushed, exit 0).
ENTRYPOINT ["node", "dist/cli.js"]
