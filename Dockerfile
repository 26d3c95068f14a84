# syntax=docker/dockerfile:1
# routeros-exporter: multi-stage build, production-only node_modules, non-root, exec-form CMD and HEALTHCHECK.
#   docker build -t routeros-exporter .
#   docker run --rm -p 9731:9731 routeros-exporter node dist/main.js demo --listen 0.0.0.0:9731
ARG NODE_IMAGE=node:24-bookworm-slim

# Build: every dependency, then TypeScript → dist/.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts are skipped here (the `prepare` script would build before the sources are copied); the build runs below.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Production dependencies only, without install scripts.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# Runtime: node, production node_modules, dist/ and package.json (which makes dist/ an ES module package).
FROM ${NODE_IMAGE} AS runtime
ARG NODE_IMAGE
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
      org.opencontainers.image.base.name="${NODE_IMAGE}"
ENV NODE_ENV=production \
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
