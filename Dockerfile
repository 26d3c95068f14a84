# syntax=docker/dockerfile:1
# routeros-exporter: multi-stage build, production-only node_modules, non-root, exec-form CMD and HEALTHCHECK.
#   docker build -t routeros-exporter .
#   docker run --rm -p 9731:9731 routeros-exporter node dist/main.js demo --listen 0.0.0.0:9731
# The base, pinned by digest so that a rebuild gets the same bytes (a tag moves with every Node.js and Debian
# patch). To bump it (docs/deployment.md, "Updating the base image"): `docker buildx imagetools inspect
# node:24-bookworm-slim` prints the index digest; paste it below. This one is node:24-bookworm-slim with
# Node.js 24.18.0 per public sources; it could not be checked against Docker Hub where it was set (no registry
# access there), so the first build with network access confirms it (a wrong digest fails the pull).
# CI (.ci/run) runs the test suite on the Node.js major named here, read from this line.
ARG NODE_IMAGE=node:24-bookworm-slim
ARG NODE_DIGEST=sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d

# Build: every dependency, then TypeScript → dist/.
FROM ${NODE_IMAGE}@${NODE_DIGEST} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts are skipped: the TypeScript build needs none.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The build marks the package's commands executable (scripts/bin-executable.mjs).
COPY scripts/bin-executable.mjs ./scripts/
RUN npm run build

# Production dependencies only, without install scripts. --omit=dev keeps the optional dependencies (zod,
# selfsigned): only the built-in emulator uses them, and the image's `demo` (the compose demo, the smoke test)
# needs it. An exporter-only image adds --omit=optional; `run`, `once` and `check` never load them.
FROM ${NODE_IMAGE}@${NODE_DIGEST} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# Runtime: node, production node_modules, dist/ and package.json (which makes dist/ an ES module package).
FROM ${NODE_IMAGE}@${NODE_DIGEST} AS runtime
ARG NODE_IMAGE
ARG NODE_DIGEST
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
ARG SOURCE=https://github.com/routeros-exporter/routeros-exporter
LABEL org.opencontainers.image.title="routeros-exporter" \
      org.opencontainers.image.description="Prometheus exporter and health checker for MikroTik RouterOS 7 routers and their WireGuard tunnels" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.documentation="${SOURCE}/blob/main/docs/deployment.md" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.base.name="docker.io/library/${NODE_IMAGE}" \
      org.opencontainers.image.base.digest="${NODE_DIGEST}"
# V8's young generation capped at 4 MiB semi-spaces: from Node 22, V8 lets it grow to 64 MiB ones, 128 MiB
# committed, and keeps that between collections (without an option the daemon caps them at 8 MiB itself).
# Measured on this image's Node (docs/performance.md), median RSS at 2,000 small routers 364-380 MB against
# 386-429 MB with 16 MiB semi-spaces; at 100 routers x 1,000 peers 250-252 MB as Prometheus scrapes against
# 279 MB; for 0-0.5 s more collection CPU per 30 s cycle (young collections come more often). Override
# NODE_OPTIONS to change it.
# glibc's malloc maps every block of 64 KiB and more on its own: each kept TLS connection holds a 64 KiB read
# buffer of which a small router's replies touch a few KB, and from the main heap that buffer sat on pages other
# blocks had dirtied. Median RSS at 2,000 small routers with kept connections 356-361 MB against 405-413 MB; at
# 100 routers x 1,000 peers 250-252 MB against 285 MB; for up to 0.3 s more collection CPU per 30 s cycle
# (docs/performance.md, fifteenth round). To undo it, override it with 131072 (glibc's own starting point); an
# empty value would map every block.
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=4 \
    MALLOC_MMAP_THRESHOLD_=65536 \
    ROUTEROS_EXPORTER_CONFIG=/etc/routeros-exporter/config.yml
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
USER node
EXPOSE 9731
# Liveness without curl: Node's own fetch. Set HEALTHCHECK_URL when the exporter listens elsewhere.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.HEALTHCHECK_URL || 'http://127.0.0.1:9731/-/healthy', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
