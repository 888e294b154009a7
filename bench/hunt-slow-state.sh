#!/usr/bin/env bash
# Starts the `hot` scenario of bench:redirect again and again until a snip process falls into the slow
# state (bench/README.md, "The slow state's signature"): a round whose main-thread scavenges take
# MIN_MS or more. It then asks that process for a heap snapshot during its second round (SIGUSR2,
# node's --heapsnapshot-signal), which node writes to the repository's root as Heap.*.heapsnapshot.
# Usage: bash bench/hunt-slow-state.sh [starts, default 60] [MIN_MS, default 700]
# Extra node flags for the snip children: BENCH_HUNT_FLAGS (say --trace-gc-nvp; the state is rarer with traces).
set -u
cd "$(dirname "$0")/.."
starts="${1:-60}"
min_ms="${2:-700}"
out="$(mktemp -d)"
echo "logs in $out"
for i in $(seq 1 "$starts"); do
  log="$out/start-$i.log"
  BENCH_SNIP_FLAGS="--heapsnapshot-signal=SIGUSR2 ${BENCH_HUNT_FLAGS:-}" npx tsx bench/redirect.ts --load wrk --links 1000000 \
    --duration 8 --rounds 2 --warmup 2 --scenarios hot --no-pg --no-observability --no-dead-broker >"$log" 2>&1 &
  bench=$!
  caught=0
  while kill -0 "$bench" 2>/dev/null; do
    sleep 1
    [ "$caught" = 1 ] && continue
    ms="$(grep -o 'round 1 snip.*scavenges [0-9]* ms' "$log" | grep -o '[0-9]* ms$' | grep -o '[0-9]*')"
    if [ -n "$ms" ] && [ "$ms" -ge "$min_ms" ]; then
      sleep 3 # into round 2
      pkill -USR2 -f "bench/snip-server.ts"
      echo "start $i: round 1 took $ms ms of scavenges; snapshot asked ($log)"
      caught=1
    fi
  done
  if [ "$caught" = 1 ]; then exit 0; fi
  echo "start $i: normal ($(grep -o 'scavenges [0-9]* ms' "$log" | tr '\n' ' '))"
done
echo "not caught in $starts starts"
exit 1
