#!/usr/bin/env bash
# Builds the libFuzzer targets (preset `fuzz`: clang 14, ASan + UBSan) and runs each for a bounded
# time, seeded from tests/data; prints the executions each reached.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 60 s; every target)
# Targets: onnx_import schedule_json intervals_csv project_file tensor_files.
# A crash leaves its input in build/fuzz/artifacts/TARGET/; once fixed, copy it into
# tests/data/fuzz/TARGET/ so ctest replays it (fuzz_replay_TARGET) in every build.
# The growing corpus stays in build/fuzz/corpus/TARGET/ between runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(onnx_import schedule_json intervals_csv project_file tensor_files profile_import)

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
# WEFT_FUZZ_NO_BUILD=1: use the binaries as built (several fuzz.sh may then run side by side).
if [ "${WEFT_FUZZ_NO_BUILD:-0}" != 1 ]; then
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz --target $(printf 'fuzz_%s ' "${targets[@]}")
fi

data=tests/data
seeds_for() {
  case "$1" in
    onnx_import) echo "$data/bad/models $data/models" ;;  # not bad/external: its links loop
    schedule_json) echo "$data/bad/schedules" ;;
    intervals_csv) echo "$data/bad/intervals $data/minimalloc" ;;
    project_file) echo "$data/bad/projects" ;;
    tensor_files) echo "$data/bad/inputs $data/bad/inputs/formats" ;;
    profile_import) echo "$data/bad/profiles" ;;
    *) echo "fuzz.sh: unknown target '$1'" >&2; exit 1 ;;
  esac
}
max_len_for() {
  case "$1" in
    onnx_import) echo 65536 ;;  # the smaller real models (squeezenet, resnet50, googlenet) fit
    *) echo 16384 ;;
  esac
}

status=0
summary=()
for t in "${targets[@]}"; do
  corpus=build/fuzz/corpus/$t
  artifacts=build/fuzz/artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  log=build/fuzz/$t.log
  echo "fuzz.sh: $t for ${seconds}s (log: $log)"
  # shellcheck disable=SC2046
  if ! WEFT_ASSETS_DIR="$root/assets" build/fuzz/fuzz/fuzz_$t "$corpus" $(seeds_for "$t") "$data/fuzz/$t" \
      -max_total_time="$seconds" -max_len="$(max_len_for "$t")" -timeout=20 -rss_limit_mb=4096 \
      -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1; then
    status=1
    echo "fuzz.sh: $t FAILED; see $log and $artifacts/" >&2
    grep -m5 -E "ERROR|SUMMARY|runtime error" "$log" >&2 || true
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  summary+=("$t: ${execs:-?} executions in ${seconds}s")
done
printf '%s\n' "${summary[@]}"
exit $status
