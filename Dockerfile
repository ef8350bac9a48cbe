# syntax=docker/dockerfile:1
# Build:  docker build -t mintlify-slack .
# Run:    docker run --env-file .env -p 3000:3000 mintlify-slack
# Scale out: the same image runs every role (ROLE=all, the default; web; worker), with REDIS_URL for web and worker.
#         docker-compose.yml runs Redis + 2 web + 2 workers (docs/operating.md#scale-out).

ARG NODE_IMAGE=node:24-bookworm-slim

# --- build: all dependencies, compile src/ to dist/ ---
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

# --- runtime: production dependencies and the compiled output only ---
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
# No curl in the slim image: ask /healthz with Node's own fetch (200 once ready, 503 while starting or stopping).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node as PID 1 receives SIGTERM directly, so the app stops gracefully (npm start would add a shell and npm, which swallow signals).
# No node flags here: the app restarts itself in place with its role's (src/app/heap-policy.ts, docs/operating.md#memory).
CMD ["node", "dist/index.js"]
