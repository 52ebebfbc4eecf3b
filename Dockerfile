# Payrail on the official Node image (docs/operator/install.md). Minimal on purpose: the same launcher as `npm start`
# (packages/server/bin/payrail-server), settings from the environment, data in a volume.
#   docker build -t payrail .
#   docker run --rm -p 8080:8080 -e PAYRAIL_ADMIN_TOKEN=… -v payrail-data:/var/lib/payrail payrail

FROM node:20-bookworm-slim AS build
WORKDIR /app
# The manifests first, so that a change of code alone reuses the installed dependencies.
COPY package.json package-lock.json ./
COPY packages/protocol/package.json packages/protocol/
COPY packages/sdk/package.json packages/sdk/
COPY packages/server/package.json packages/server/
COPY packages/cli/package.json packages/cli/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY scripts ./scripts
COPY packages ./packages
# JavaScript only (types are checked in CI), then the build tools leave.
RUN node scripts/build.mjs --no-types protocol server cli && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 PAYRAIL_DATA_DIR=/var/lib/payrail
WORKDIR /app
COPY --from=build /app ./
RUN mkdir -p /var/lib/payrail && chown node:node /var/lib/payrail
USER node
VOLUME /var/lib/payrail
EXPOSE 8080
# exec form, so that the launcher (which execs Node) receives SIGTERM and drains.
CMD ["sh", "packages/server/bin/payrail-server"]
