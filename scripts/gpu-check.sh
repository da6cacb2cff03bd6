#!/usr/bin/env bash
# One-shot check of the CUDA executor for a session that has a GPU (written for an H200 with
# 16 cores; budget: under 8 minutes). Configures the release preset for sm_90 (UI and benchmarks
# off), builds weft and the GPU tests, runs `ctest -L gpu`, then for googlenet, squeezenet1_1 and
# resnet50 (weights absent: seeded values, as on the CPU) prints one table per model: strategy,
# streams, events, sequential eager / sequential graph / schedule eager / schedule graph ms,
# measured speedup vs the graph baseline, predicted speedup (weft simulate --graph), overlapped
# node pairs and the max abs error vs the CPU reference.
# Usage: scripts/gpu-check.sh [BUILD_DIR]   (default build/release); env ITER (20), WARMUP (3),
#        TABLE_ONLY=1 (skip configure, build and ctest: reuse BUILD_DIR's weft).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
iter=${ITER:-20}
warmup=${WARMUP:-3}
jobs=$(nproc 2>/dev/null || echo 8)
t0=$(date +%s)
step() { echo; echo "== $* ($(( $(date +%s) - t0 )) s)"; }

step "GPU"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo "nvidia-smi failed"

ctest_rc=0
if [ -z "${TABLE_ONLY:-}" ]; then
  step "configure ($build)"
  if ! cmake --preset release -B "$build" -DWEFT_BUILD_BENCH=OFF -DWEFT_BUILD_UI=OFF -DWEFT_BUILD_GPU=ON \
       -DCMAKE_CUDA_ARCHITECTURES=90 >"$build.configure.log" 2>&1; then
    tail -30 "$build.configure.log"
    echo "gpu-check: configure failed (missing packages? see scripts/bootstrap.sh)"; exit 2
  fi
  if ! grep -q "cuda_kernels.cu" "$build/build.ninja"; then
    grep -i "weft:" "$build.configure.log"
    echo "gpu-check: this configuration has no CUDA executor (toolkit or cuDNN not found)"; exit 2
  fi

  step "build weft + GPU tests (-j$jobs)"
  if ! cmake --build "$build" -j"$jobs" --target weft test_cuda_check test_cuda_executor >"$build.build.log" 2>&1; then
    grep -E "error|Error" "$build.build.log" | head -40
    echo "gpu-check: build failed (full log: $build.build.log)"; exit 2
  fi

  step "ctest -L gpu"
  timeout 240 ctest --test-dir "$build" -L gpu --output-on-failure
  ctest_rc=$?
fi

weft="$build/app/weft/weft"
[ -x "$weft" ] || weft=$(find "$build" -type f -name weft -perm -u+x | head -1)
strategies="sequential seed-greedy level-rr chains cp-list resource-aware"
out=$(mktemp -d)
for model in googlenet squeezenet1_1 resnet50; do
  step "$model"
  path=tests/data/models/$model.onnx
  for s in $strategies; do
    timeout 60 "$weft" run "$path" --backend cuda --device h200 --strategy "$s" --graph \
      --iterations "$iter" --warmup "$warmup" --json >"$out/$model.$s.run.json" 2>"$out/$model.$s.run.err" || true
    timeout 30 "$weft" simulate "$path" --device h200 --strategy "$s" --graph --json \
      >"$out/$model.$s.sim.json" 2>/dev/null || true
  done
  python3 - "$out" "$model" $strategies <<'PY'
import json, sys
out, model, strategies = sys.argv[1], sys.argv[2], sys.argv[3:]
def load(p):
    try:
        return json.load(open(p))
    except Exception:
        return None
hdr = f"{'strategy':<15}{'streams':>8}{'events':>7}{'seq eager':>11}{'seq graph':>11}{'sch eager':>11}{'sch graph':>11}{'vs graph':>10}{'predicted':>10}{'overlaps':>9}{'err vs cpu':>12}"
print(hdr)
for s in strategies:
    r = load(f"{out}/{model}.{s}.run.json")
    p = load(f"{out}/{model}.{s}.sim.json")
    pred = f"{p['speedup_vs_graph']:.2f}x" if p else "-"
    if not r:
        err = open(f"{out}/{model}.{s}.run.err").read().strip().splitlines()
        print(f"{s:<15} FAILED: {err[-1] if err else 'no output'}  (predicted {pred})")
        continue
    e = r.get("max_abs_error_vs_cpu")
    print(f"{s:<15}{r['streams']:>8}{r['events']:>7}{r['sequential_ms']:>11.3f}{r['sequential_graph_ms']:>11.3f}"
          f"{r['schedule_ms']:>11.3f}{r['schedule_graph_ms']:>11.3f}{r['speedup_vs_graph']:>9.2f}x{pred:>10}"
          f"{r['overlapped_pairs']:>9}{('%.2e' % e) if e is not None else 'NaN':>12}")
PY
done
step "done (ctest rc=$ctest_rc; per-run JSON in $out)"
exit $ctest_rc
