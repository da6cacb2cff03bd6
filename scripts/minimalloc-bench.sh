#!/usr/bin/env bash
# Prints arena / lower bound for the MiniMalloc benchmark instances with every planner.
# usage: scripts/minimalloc-bench.sh [WEFT_BINARY] [SEARCH_MS]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
weft="${1:-$here/build/cli-only/app/weft/weft}"
ms="${2:-3000}"
dir="$here/../shared/benchmarks/minimalloc"
[ -d "$dir" ] || dir="$here/tests/data/minimalloc"
printf "%-4s %8s %10s %12s %12s %8s %8s\n" inst buffers bound greedy-size best g/bound best/bound
for f in "$dir"/[A-K].csv; do
  json="$("$weft" plan --intervals "$f" --search-ms "$ms" --json)"
  python3 - "$f" <<PY
import json, sys, os
j = json.loads('''$json''')
per = {p["planner"]: p["arena_bytes"] for p in j["planners"]}
b = j["lower_bound_bytes"]
print("%-4s %8d %10d %12d %12d %8.3f %8.3f" % (os.path.basename(sys.argv[1])[0], j["buffers"], b,
      per["greedy-by-size"], per["best"], per["greedy-by-size"] / b, per["best"] / b))
PY
done
