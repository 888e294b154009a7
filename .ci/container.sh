#!/usr/bin/env bash
# CI's container step: podman, runc and debootstrap from Debian's packages, then `npm run test:container`
# (the stand-in base image, the project's image from its Dockerfile, the container tests; docs/docker.md).
# The base's root is cached under /var/cache/snip-ci between runs on a machine that keeps it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v podman > /dev/null || ! command -v runc > /dev/null || ! command -v debootstrap > /dev/null; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q podman runc debootstrap
fi
podman --version
start=$SECONDS
npm run test:container
echo "container step took $((SECONDS - start))s"
