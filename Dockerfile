# A gridgate router head: the Node server's production build (`npm run build`, dist/server/), the same
# program `npm start` runs, on Node.js 22. It reads its config from GRIDGATE_CONFIG (mount one there);
# the CDK app's service front door adds the deployment's config to this image (infra/head-image.ts). A
# container is reached through its published port, so its config must set "host": "0.0.0.0" (the
# default, 127.0.0.1, is the container's own loopback).
#   docker build -t gridgate .
#   docker run -p 4444:4444 -v "$PWD/gridgate.json:/etc/gridgate/gridgate.json:ro" -e GRIDGATE_SECRET=… gridgate
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: the build needs esbuild's platform binary (an optional dependency), nothing more.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY functions functions
COPY scripts/server-build.mjs scripts/
RUN node scripts/server-build.mjs

# The build is one self-contained bundle (no TypeScript loader, no browser in the image) and the one package it
# runs as it is, beside it.
FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
ENV GRIDGATE_CONFIG=/etc/gridgate/gridgate.json
COPY --from=build /app/dist/server dist/server
# The playwright-core gridgate depends on, beside the bundle where the server finds its own: Playwright clients
# of that major.minor are served with no install and no registry (other versions are installed on first use).
COPY --from=build /app/node_modules/playwright-core dist/server/node_modules/playwright-core
USER node
EXPOSE 4444
CMD ["node", "--max-semi-space-size=4", "dist/server/node-server.mjs"]
