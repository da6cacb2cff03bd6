#!/usr/bin/env bash
# CPU prediction fidelity: `weft run --backend cpu --json` for every test model and strategy,
# printing measured vs predicted speedup and |predicted − measured| / measured (docs/performance.md).
#   scripts/cpu-fidelity.sh [WEFT] [STREAMS] [ITERATIONS]
# BATCH=N binds the symbolic batch of the synthetic models (randwire_ws, transformer4h,
# grouped_mlp; default 1): longer iterations, so that a descheduled thread weighs less.
# The predicted speedup simulates the schedule on a CPU device calibrated from the same run's
# sequential node times; "fitted" uses the fitted device's times from shapes alone. latch_us and
# xcore (µs per MiB a core reads that another wrote) are the run's own probes: on VMs whose host
# places the vCPUs near or far, they say which placement the row ran in (docs/devices.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
weft=${1:-$here/../build/ci/app/weft/weft}
streams=${2:-2}
iterations=${3:-5}
models=${MODELS:-"googlenet squeezenet1_1 randwire_ws transformer4h grouped_mlp resnet50 mobilenet_v3_large"}
strategies=${STRATEGIES:-"level-rr chains cp-list resource-aware"}
printf '%-20s %-15s %9s %9s %7s %9s %8s %8s\n' model strategy measured predicted error fitted latch_us xcore
for m in $models; do
  dims=""
  case $m in randwire_ws|transformer4h|grouped_mlp) dims="--dim batch=${BATCH:-1}" ;; esac
  for s in $strategies; do
    # shellcheck disable=SC2086
    json=$("$weft" run "$here/../tests/data/models/$m.onnx" $dims --backend cpu --strategy "$s" --streams "$streams" \
           --iterations "$iterations" --warmup 1 --json 2>/dev/null) || { printf '%-20s %-15s failed\n' "$m" "$s"; continue; }
    python3 - "$m" "$s" "$json" <<'PY'
import json, sys
j = json.loads(sys.argv[3])
print(f"{sys.argv[1]:<20} {sys.argv[2]:<15} {j['speedup']:8.2f}x {j['predicted_speedup']:8.2f}x {100*j['prediction_error']:6.1f}% {j['predicted_speedup_fitted']:8.2f}x"
      f" {j['latch_us']:8.3f} {j.get('cross_core_us_per_mib', 0):8.1f}")
PY
  done
done
