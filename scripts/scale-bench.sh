#!/bin/sh
# Times whole `weft` commands on the synthetic models (bench/synthetic_models.h) at the sizes
# given (default 10000 and 100000 operators): wall, user and system seconds and peak RSS per
# command, as in docs/performance.md. The models are generated here (weft-synth), not committed.
#   scripts/scale-bench.sh BUILD_DIR [FAMILY] [SIZES...]   e.g. scripts/scale-bench.sh build/release layered 10000 100000
# Needs a build with -DWEFT_BUILD_BENCH=ON (the release preset) for weft-synth.
set -eu
build=${1:?usage: scripts/scale-bench.sh BUILD_DIR [FAMILY] [SIZES...]}
family=${2:-layered}
[ $# -ge 2 ] && shift 2 || shift $#
sizes=${*:-10000 100000}
weft="$build/app/weft/weft"
synth="$build/bench/weft-synth"
[ -x "$weft" ] || weft="$build/weft"
for tool in "$weft" "$synth"; do
  [ -x "$tool" ] || { echo "scale-bench: $tool not built (configure with -DWEFT_BUILD_BENCH=ON)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-44s %8s %8s %8s %9s %9s\n' command operators wall_s user_s sys_s rss_MiB
for n in $sizes; do
  model="$tmp/$family-$n.onnx"
  "$synth" "$family" "$n" "$model" > /dev/null
  while read -r name args; do
    /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$weft" $name "$model" $args > /dev/null 2> "$tmp/err" || {
      echo "scale-bench: weft $name $args failed on $n operators:" >&2
      cat "$tmp/err" >&2
      exit 1
    }
    read -r wall user sys rss < "$tmp/time"
    printf '%-44s %8s %8s %8s %9s %9s\n' "weft $name $args" "$n" "$wall" "$user" "$sys" "$((rss / 1024))"
  done <<EOF
analyze --json
schedule --strategy chains --json
schedule --strategy cp-list --json
plan --strategy chains --json
simulate --strategy chains --json
EOF
done
