#!/bin/sh
# Times whole `weft` commands on the synthetic models (bench/synthetic_models.h) at the sizes
# given (default 10000 30000 100000 300000 operators), several iterations each: median wall
# seconds, user seconds and the largest peak RSS per command and size, then per command the
# growth exponent from each size to the next, from the first to 100k, and the least-squares slope
# of log(wall) on log(operators) over all sizes (docs/performance.md, issues 16 and 45).
#   scripts/scale-bench.sh BUILD_DIR [FAMILIES] [SIZES...]
#     FAMILIES: one family, several joined by commas, or `all` (default layered)
#   e.g. scripts/scale-bench.sh build/release wide 10000 30000 100000
#        ITERATIONS=5 COMMANDS='analyze --json' scripts/scale-bench.sh build/release all
# ITERATIONS (default 3) runs per command and size; COMMANDS (one command per line) replaces
# the list below; TIMEOUT (default 120 s) stops one run, reported as such. A command that fails
# (a refusal included) is reported with its exit code and first line of stderr, not timed.
# Needs a build with -DWEFT_BUILD_BENCH=ON (the release preset) for weft-synth; SYNTH names
# another weft-synth (to time an older build's weft on models only a newer one can write).
set -eu
build=${1:?usage: scripts/scale-bench.sh BUILD_DIR [FAMILIES] [SIZES...]}
families=${2:-layered}
[ $# -ge 2 ] && shift 2 || shift $#
sizes=${*:-10000 30000 100000 300000}
iterations=${ITERATIONS:-3}
limit=${TIMEOUT:-120}
weft="$build/app/weft/weft"
synth=${SYNTH:-"$build/bench/weft-synth"}
[ -x "$weft" ] || weft="$build/weft"
for tool in "$weft" "$synth"; do
  [ -x "$tool" ] || { echo "scale-bench: $tool not built (configure with -DWEFT_BUILD_BENCH=ON)" >&2; exit 1; }
done
[ "$families" = all ] && families=layered,transformer,moe,randwire,wide,longrange,bursty
commands=${COMMANDS:-"analyze --json
schedule --strategy sequential --json
schedule --strategy seed-greedy --json
schedule --strategy level-rr --json
schedule --strategy chains --json
schedule --strategy cp-list --json
schedule --strategy resource-aware --json
schedule --strategy split-overlap --json
simulate --strategy chains --json
simulate --strategy cp-list --json
plan --strategy chains --json
plan --strategy cp-list --json"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows="$tmp/rows"
: > "$rows"
printf '%-12s %-44s %9s %8s %8s %8s %9s\n' family command operators wall_s min_s user_s rss_MiB
for family in $(echo "$families" | tr , ' '); do
  for n in $sizes; do
    model="$tmp/$family-$n.onnx"
    # Whole blocks are added until the count is reached: the operators it really holds.
    ops=$("$synth" "$family" "$n" "$model" | awk '{ print $(NF - 1) }')
    echo "$commands" | while read -r name args; do
      [ -n "$name" ] || continue
      i=0
      : > "$tmp/runs"
      status=ok
      while [ "$i" -lt "$iterations" ]; do
        rc=0
        /usr/bin/time -f '%e %U %M' -o "$tmp/time" timeout "$limit" "$weft" $name "$model" $args > /dev/null 2> "$tmp/err" || rc=$?
        if [ "$rc" -ne 0 ]; then
          status="exit $rc: $(grep -v '^Command' "$tmp/err" | head -n 1)"
          [ "$rc" -eq 124 ] && status="over ${limit} s"
          break
        fi
        tail -n 1 "$tmp/time" >> "$tmp/runs"
        i=$((i + 1))
      done
      if [ "$status" != ok ]; then
        printf '%-12s %-44s %9s %s\n' "$family" "weft $name $args" "$ops" "$status"
        continue
      fi
      # Median wall (and the user time of that run), fastest wall, largest peak RSS.
      sort -n "$tmp/runs" | awk -v f="$family" -v c="weft $name $args" -v n="$ops" '
        { wall[NR] = $1; user[NR] = $2; if ($3 > rss) rss = $3 }
        END {
          m = int((NR + 1) / 2)
          printf "%-12s %-44s %9s %8.2f %8.2f %8.2f %9d\n", f, c, n, wall[m], wall[1], user[m], rss / 1024
        }' | tee -a "$rows"
    done
  done
done
# Exponents per family and command: log(t_next / t) / log(n_next / n) between neighbouring
# sizes, from the first size to 100000, and the least-squares slope over every size.
echo
printf '%-12s %-44s %s\n' family command 'exponents (size to size; first to 100k; fitted)'
awk '
  { key = $1 SUBSEP $2; for (i = 3; i <= NF - 5; ++i) key = key " " $i
    if (!(key in count)) order[++keys] = key
    k = ++count[key]; n[key, k] = $(NF - 4); t[key, k] = $(NF - 3) }
  END {
    for (q = 1; q <= keys; ++q) {
      key = order[q]; split(key, part, SUBSEP); c = count[key]; line = ""
      sx = sy = sxx = sxy = 0; to100 = ""
      for (k = 1; k <= c; ++k) {
        x = log(n[key, k]); y = log(t[key, k] > 0.005 ? t[key, k] : 0.005)
        sx += x; sy += y; sxx += x * x; sxy += x * y
        if (k > 1) line = line sprintf(" %.2f", (y - py) / (x - px))
        if (n[key, k] >= 95000 && n[key, k] <= 105000 && k > 1) to100 = sprintf("%.2f", (y - y1) / (x - x1))
        if (k == 1) { x1 = x; y1 = y }
        px = x; py = y
      }
      fit = c > 1 ? sprintf("%.2f", (c * sxy - sx * sy) / (c * sxx - sx * sx)) : "-"
      printf "%-12s %-44s %s; %s; %s\n", part[1], part[2], line, to100 == "" ? "-" : to100, fit
    }
  }' "$rows"
