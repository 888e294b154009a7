#!/usr/bin/env bash
# npm run test:container: the stand-in base image (cached), the project's image from its Dockerfile, then the
# container tests (test/container/image.container.ts). Needs podman, runc and debootstrap (.ci/container.sh
# installs them) and PostgreSQL on 127.0.0.1:5432 for the PostgreSQL part. Prints what each part took.
set -euo pipefail
cd "$(dirname "$0")/../.."
IMAGE="${SNIP_IMAGE:-snip:ci}"
t0=$SECONDS

bash test/container/base-image.sh
t_base=$((SECONDS - t0))

# The registry's traffic passes a TLS-intercepting proxy here: npm ci in the build trusts the machine's CA
# bundle, handed in as a build secret (never a layer of the image). --format docker: podman keeps HEALTHCHECK
# only in Docker's image format. --pull=never: FROM names the stand-in base, which no registry serves.
CA="${NODE_EXTRA_CA_CERTS:-$(npm config get cafile 2>/dev/null || true)}"
[ -s "$CA" ] || CA=/etc/ssl/certs/ca-certificates.crt
BUILD_LOG="$(mktemp)"
if ! podman --runtime runc build --format docker --pull=never --network=host \
  --ulimit nofile=16384:16384 --ulimit nproc=4096:4096 \
  --secret "id=ca,src=$CA" -t "$IMAGE" . > "$BUILD_LOG" 2>&1; then
  tail -n 80 "$BUILD_LOG"
  echo "FATAL: podman build failed (whole log: $BUILD_LOG)"
  exit 1
fi
grep -E '^(\[[0-9]/[0-9]\] STEP|COMMIT)' "$BUILD_LOG"
# Earlier runs' images, untagged, only take space; the last day's stay, with the build stage whose npm ci layer the next build reuses.
podman image prune -f --filter until=24h > /dev/null
t_build=$((SECONDS - t0 - t_base))

# What an interrupted earlier run left: its containers and volumes are named snip-ct-<pid>-*.
podman ps -a --format '{{.Names}}' | grep '^snip-ct-' | xargs -r podman rm -f -t 0 > /dev/null || true
podman volume ls --format '{{.Name}}' | grep '^snip-ct-' | xargs -r podman volume rm -f > /dev/null || true

SNIP_IMAGE="$IMAGE" npx vitest run --config test/container/vitest.config.ts
echo "container step: base image ${t_base}s, image build ${t_build}s, tests $((SECONDS - t0 - t_base - t_build))s, total $((SECONDS - t0))s"
