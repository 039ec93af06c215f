# The service image, built the same way as `npm start` (README, "Running on a Postgres server"):
# the build stage installs the locked tree with dev dependencies and builds every project with Nx; the
# runtime stage holds only the production dependencies and the built output, and runs as a non-root user.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# the manifests first, so the install layer is reused until the lockfile changes
COPY package.json package-lock.json ./
COPY libs/contracts/package.json libs/contracts/
COPY libs/workflow-graph/package.json libs/workflow-graph/
RUN npm ci --include=dev --no-audit --no-fund
COPY . .
RUN NX_DAEMON=false NX_NO_CLOUD=true npx nx run-many -t build --outputStyle=static

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/contracts/package.json libs/contracts/
COPY libs/workflow-graph/package.json libs/workflow-graph/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/libs/workflow-graph/dist libs/workflow-graph/dist
COPY --from=build /app/apps/api/dist apps/api/dist
COPY --from=build /app/apps/studio/dist apps/studio/dist
# DATA_DIR (the generated APP_SECRET, or the embedded database when DATABASE_URL is unset) belongs to
# the unprivileged user the image's base provides
RUN mkdir -p /app/data && chown node:node /app/data
USER node
ENV DATA_DIR=/app/data PORT=3000
EXPOSE 3000
# the service's memory defaults, as scripts/service-process.mjs gives them to `npm start`
ENV MALLOC_ARENA_MAX=2
CMD ["node", "--max-semi-space-size=2", "apps/api/dist/src/main.js"]
