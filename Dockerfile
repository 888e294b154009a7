# snip's container image (docs/docker.md). Two stages: the build stage has the compiler that better-sqlite3's
# native module needs and every devDependency; the runtime stage has Node, the compiled server and the
# production dependencies only, runs as the unprivileged `node` user and keeps its state in the /data volume.

FROM node:22-bookworm-slim AS build
# better-sqlite3 compiles with node-gyp where its prebuilt binary cannot be downloaded; the slim image has no compiler.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# node-gyp builds against the headers the image ships in /usr/local/include/node instead of downloading them.
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json ./
# The typed client is an npm workspace: npm ci links it from its manifest.
COPY packages/client/package.json packages/client/
# A registry reached through a TLS-intercepting proxy needs its CA: passed as the build secret `ca`
# (docker build --secret id=ca,src=/etc/ssl/certs/ca-certificates.crt), so it never lands in a layer.
RUN --mount=type=secret,id=ca \
    if [ -s /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi \
 && npm ci --no-audit --no-fund
COPY . .
# Build with the devDependencies, then drop them: the runtime stage copies node_modules as pruned here,
# with better-sqlite3's compiled module but not the SQLite sources and objects it was built from (26 MB).
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/.cache \
 && cd node_modules/better-sqlite3 \
 && rm -rf deps src build/Release/obj build/Release/obj.target build/Release/.deps build/Release/test_extension.node

FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data
WORKDIR /app
# Owned by root and not writable by the service's user: the code cannot be changed by the process running it.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist ./dist
# `snip` on PATH for `docker exec <container> snip ...`; /data private to the service's user (as DATA_DIR is made).
RUN ln -s /app/bin/snip.js /usr/local/bin/snip \
 && mkdir -m 0700 /data \
 && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080
# Node's fetch, so that no curl or wget is needed; /readyz answers 503 while starting and while draining.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 8080}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# snip drains on SIGTERM (stops accepting, answers what is in flight, writes buffered clicks) within 15 s
# plus DRAIN_DELAY_MS: give `docker stop` that long (--time 30, compose's stop_grace_period).
STOPSIGNAL SIGTERM
# Node itself is PID 1 (env execs it): it handles SIGTERM and SIGINT, and starts no child processes to reap.
ENTRYPOINT ["snip"]
CMD ["serve"]
