#!/usr/bin/env bash
# Prints arena / lower bound for the MiniMalloc benchmark instances (greedy-by-size, exact, best).
# The search budget is in steps (deterministic unless weft plan's 10 s guard strikes first);
# SEARCH_STEPS defaults to `weft plan --intervals`'s.
# usage: scripts/minimalloc-bench.sh [WEFT_BINARY] [SEARCH_STEPS]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
weft="${1:-$here/build/cli-only/app/weft/weft}"
steps="${2:-6000000}"
dir="$here/tests/data/minimalloc"
printf "%-4s %8s %10s %12s %12s %12s %8s %9s %8s %7s\n" inst buffers bound greedy-size exact best g/bound exact/bnd best/bnd secs
for f in "$dir"/[A-K].csv; do
  start=$(date +%s.%N)
  json="$("$weft" plan --intervals "$f" --search-steps "$steps" --json)"
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  python3 - "$f" "$secs" <<PY
import json, sys, os
j = json.loads('''$json''')
per = {p["planner"]: p["arena_bytes"] for p in j["planners"]}
b = j["lower_bound_bytes"]
print("%-4s %8d %10d %12d %12d %12d %8.3f %9.3f %8.3f %7.2f" % (os.path.basename(sys.argv[1])[0], j["buffers"], b,
      per["greedy-by-size"], per["exact"], per["best"], per["greedy-by-size"] / b, per["exact"] / b, per["best"] / b,
      float(sys.argv[2])))
PY
done
