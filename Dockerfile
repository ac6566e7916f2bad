# One image for both processes; docker-compose.yml picks the command.
# (Not built on our CI machines, which have no Docker engine.)
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates tini \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY apps ./apps
COPY packages ./packages
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
RUN useradd --create-home --uid 10001 ax && mkdir -p /data /workspaces && chown ax:ax /data /workspaces
USER ax
ENV NODE_ENV=production DATA_DIR=/data WORKSPACE_DIR=/workspaces
EXPOSE 8080
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--import", "tsx", "apps/api/src/main.ts"]
