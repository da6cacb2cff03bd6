#!/usr/bin/env bash
# Batch sweeps spread over machines: each (model, batch) point is one independent `weft sweep`
# run that writes its own CSV; `merge` joins them into one CSV and one chart per model.
#
#   scripts/sweep-array.sh count            number of points (models × batches)
#   scripts/sweep-array.sh point [INDEX]    run point INDEX (default $SLURM_ARRAY_TASK_ID)
#   scripts/sweep-array.sh merge            $OUT/<model>.csv and $OUT/<model>.png per model
#
# Settings (environment):
#   MODELS      model files, space-separated (default: the test models with a batch dimension)
#   BATCHES     batch sizes, space-separated (default "1 2 4 8 16 32")
#   STRATEGIES  comma-separated strategies (default: every fixed strategy)
#   WEFT_ARGS   more weft sweep options, e.g. "--backend cpu" or "--device h200 --graph"
#   OUT         output folder (default sweep-out)
#   WEFT        the weft binary (default: weft on PATH)
#
# GNU parallel, 8 points at a time on this machine (or -S host1,host2 for several machines
# sharing a file system):
#   n=$(scripts/sweep-array.sh count)
#   seq 0 $((n - 1)) | parallel -j 8 scripts/sweep-array.sh point {}
#   scripts/sweep-array.sh merge
# Slurm job array, one point per task, then the merge once they are all done:
#   n=$(scripts/sweep-array.sh count)
#   job=$(sbatch --parsable --array=0-$((n - 1)) --wrap "scripts/sweep-array.sh point")
#   sbatch --dependency=afterok:$job --wrap "scripts/sweep-array.sh merge"
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
: "${MODELS:=$here/../tests/data/models/randwire_ws.onnx $here/../tests/data/models/transformer4h.onnx}"
: "${BATCHES:=1 2 4 8 16 32}"
: "${STRATEGIES:=}"
: "${WEFT_ARGS:=}"
: "${OUT:=sweep-out}"
: "${WEFT:=weft}"
read -r -a models <<< "$MODELS"
read -r -a batches <<< "$BATCHES"
n=$(( ${#models[@]} * ${#batches[@]} ))

case "${1:-}" in
  count)
    echo "$n"
    ;;
  point)
    i=${2:-${SLURM_ARRAY_TASK_ID:-}}
    if [[ -z "$i" || ! "$i" =~ ^[0-9]+$ || "$i" -ge "$n" ]]; then
      echo "sweep-array.sh: point needs an index in 0..$((n - 1)) (argument or SLURM_ARRAY_TASK_ID)" >&2
      exit 1
    fi
    model=${models[$(( i / ${#batches[@]} ))]}
    batch=${batches[$(( i % ${#batches[@]} ))]}
    stem=$(basename "$model" .onnx)
    mkdir -p "$OUT/points"
    args=(sweep "$model" --batches "$batch" --csv "$OUT/points/$stem-b$batch.csv")
    [[ -n "$STRATEGIES" ]] && args+=(--strategies "$STRATEGIES")
    # shellcheck disable=SC2206  # WEFT_ARGS is a list of options by design
    args+=($WEFT_ARGS)
    "$WEFT" "${args[@]}" > "$OUT/points/$stem-b$batch.txt"
    ;;
  merge)
    for model in "${models[@]}"; do
      stem=$(basename "$model" .onnx)
      parts=("$OUT"/points/"$stem"-b*.csv)
      [[ -e "${parts[0]}" ]] || { echo "sweep-array.sh: no points for $stem in $OUT/points" >&2; exit 2; }
      "$WEFT" sweep --merge "${parts[@]}" --csv "$OUT/$stem.csv" --png "$OUT/$stem.png"
    done
    ;;
  *)
    sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
    exit 1
    ;;
esac
