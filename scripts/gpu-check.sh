#!/usr/bin/env bash
# The one-shot check of Weft's CUDA backend on a GPU machine, run from the GPU bundle
# (scripts/gpu-bundle.sh builds it; docs/gpu-run.md gives the exact device call). Nothing is
# built here: the machine needs only an NVIDIA driver and NVIDIA's libraries (a CUDA toolkit's
# lib64 or the Python wheels' site-packages/nvidia/*/lib), plus python3 for the summaries.
# Steps, each with its own time limit inside a total budget (BUDGET, 330 s by default):
#   1. NVIDIA's libraries found and the versions weft loads (weft devices), nvidia-smi
#   2. the GPU tests (test_cuda_check, test_cuda_module, test_cuda_executor)
#   2b. launch figures measured with empty kernels (weft calibrate --backend cuda) against the h200
#      preset's, and GoogLeNet's merge question (issue 19) predicted with them
#   3. the table: googlenet, squeezenet1_1, resnet50, vit_b_16 at batch 1 and ppocr_v4_det at
#      batch 1 and 8, every strategy (weft run --backend cuda --graph, weft simulate --graph)
#   3b. a measured batch sweep of the grouped MLP (weft sweep --backend cuda --graph, issue 18)
#   3c. merged launches measured (issue 19): the grouped MLP and the 4-head transformer at batch 1
#      and 32, GoogLeNet at batch 1, merged (weft run --merge --graph) against the unmerged
#      sequential CUDA Graph, beside the h200 preset's prediction
#   4. PyTorch/torchvision baselines of the same architectures (torch_baseline.py)
#   5. compute-sanitizer memcheck and racecheck on one multi-stream googlenet run, memcheck on merged
#      googlenet and transformer4h runs (the pointer-array kernels, the concatenated convolution)
# Results go to $OUT when set (the device tool brings that folder back), else ./results:
#   summary.txt (the compact tables), gpu-check.log (everything), tests.log, weft-runs.json,
#   torch.json, sanitizer.log, h200-measured.json (the preset with the measured launch figures).
#   At most 8 files, as the device tool returns.
# Usage: ./gpu-check.sh   env: ITER (20), WARMUP (3), BUDGET (330), STEPS ("libs tests launch table
#        sweep merge torch sanitizer"), WEFT_NVIDIA_LIBS (colon-separated folders: skip the search),
#        NVIDIA_TOOLKIT_DIRS (toolkit folders to try instead of $CUDA_HOME/lib64 and
#        /usr/local/cuda's), NVIDIA_SITE_PACKAGES (a site-packages folder besides python3's)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$here/weft" ]; then
  # Run from a checkout's scripts/: use the bundle built beside it.
  if [ -x "$here/../build/gpu-bundle/weft" ]; then exec "$here/../build/gpu-bundle/gpu-check.sh" "$@"; fi
  echo "gpu-check: no weft beside this script; build the bundle first (scripts/gpu-bundle.sh)" >&2
  exit 2
fi
cd "$here"
out=${OUT:-$here/results}
mkdir -p "$out"  # before any log is written into it
iter=${ITER:-20}
warmup=${WARMUP:-3}
budget=${BUDGET:-330}
steps=${STEPS:-libs tests launch table sweep merge torch sanitizer}
log="$out/gpu-check.log"
summary="$out/summary.txt"
: >"$log"
: >"$summary"
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( budget - $(elapsed) )); }
# A step's limit: its own cap, or what is left of the budget (keeping `reserve` s for later steps).
limit() { local cap=$1 reserve=${2:-0} l; l=$(( $(left) - reserve )); [ "$l" -lt "$cap" ] && cap=$l; [ "$cap" -lt 5 ] && cap=5; echo "$cap"; }
say() { echo "$*" | tee -a "$log" "$summary"; }
step() { say ""; say "== $* ($(elapsed) s)"; }
want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }

export WEFT_ASSETS_DIR="$here/assets" WEFT_TEST_DATA_DIR="$here/data" WEFT_CLI="$here/weft"
export WEFT_SPAWN_MEASURE="$here/weft_spawn_measure"

# ---- 1. NVIDIA's libraries -------------------------------------------------------------------
nvidia_dirs() {
  if [ -n "${WEFT_NVIDIA_LIBS:-}" ]; then echo "$WEFT_NVIDIA_LIBS" | tr ':' '\n'; return; fi
  local d sp
  for d in ${NVIDIA_TOOLKIT_DIRS:-"${CUDA_HOME:-/usr/local/cuda}/lib64" /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib}; do
    [ -d "$d" ] && ls "$d"/libcublas.so* >/dev/null 2>&1 && readlink -f "$d"
  done
  {
    [ -n "${NVIDIA_SITE_PACKAGES:-}" ] && echo "$NVIDIA_SITE_PACKAGES"
    python3 -c 'import site, sys; print("\n".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null
    ls -d /opt/*/.venv/lib/python3*/site-packages /usr/local/lib/python3*/dist-packages 2>/dev/null
  } | while read -r sp; do
    for d in "$sp"/nvidia/*/lib; do
      [ -d "$d" ] && ls "$d"/*.so* >/dev/null 2>&1 && readlink -f "$d"
    done
  done
}
mapfile -t libdirs < <(nvidia_dirs | awk 'NF && !seen[$0]++')
nvpath=$(IFS=:; echo "${libdirs[*]}")
machine_ldpath=${LD_LIBRARY_PATH:-}
export LD_LIBRARY_PATH="$nvpath${machine_ldpath:+:$machine_ldpath}"

step "GPU and NVIDIA libraries"
say "bundle: $(head -1 "$here/README.txt" 2>/dev/null)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | tee -a "$log" "$summary" ||
  say "nvidia-smi failed"
say "library folders searched (LD_LIBRARY_PATH): ${nvpath:-none found}"
for d in "${libdirs[@]}"; do say "  $d: $(cd "$d" && ls libcudart.so.* libcublas.so.* libcudnn.so.* libnvrtc.so.* 2>/dev/null | tr '\n' ' ')"; done
timeout 60 ./weft devices 2>&1 | tee -a "$log" | grep -E "^  [0-9]|no CUDA|cannot|CUDA module|driver CUDA|loaded|warning" | tee -a "$summary"
devices_rc=${PIPESTATUS[0]}
if [ "$devices_rc" -ne 0 ]; then say "gpu-check: weft devices exited $devices_rc: no usable GPU; GPU steps will report it"; fi
if want libs && [ -x ./closure.sh ]; then ./closure.sh "$here" >>"$log" 2>&1 && say "library closure: ok" || say "library closure: FAILED (see gpu-check.log)"; fi

# ---- 2. GPU tests ------------------------------------------------------------------------------
tests_rc=0
if want tests; then
  step "GPU tests"
  : >"$out/tests.log"
  for t in test_cuda_check test_cuda_module test_cuda_executor; do
    lim=$(limit 150 200)
    timeout "$lim" "./$t" >>"$out/tests.log" 2>&1
    rc=$?
    case $rc in
      0) verdict="passed" ;;
      77) verdict="skipped (exit 77: $(grep -m1 'skipped:' "$out/tests.log" | sed 's/.*skipped: //'))" ;;
      124) verdict="TIMED OUT after ${lim} s"; tests_rc=1 ;;
      *) verdict="FAILED (exit $rc)"; tests_rc=1 ;;
    esac
    say "$(printf '%-20s %s' "$t" "$verdict")"
  done
  grep -E "^\[  FAILED  \]|Failure|^\[ startup \]" "$out/tests.log" | sort -u | head -40 | tee -a "$summary" >>"$log"
fi

# ---- 2b. Launch figures --------------------------------------------------------------------------
if want launch; then
  step "launch figures: empty kernels (weft calibrate --backend cuda) against the h200 preset"
  measured="$out/h200-measured.json"
  timeout "$(limit 60 200)" ./weft calibrate --backend cuda --device h200 -o "$measured" 2>&1 | tee -a "$log" |
    grep -vE '^[{}]|^  "' | tee -a "$summary"
  if [ -s "$measured" ]; then
    # Issue 19: does merging plus streams beat streams alone on GoogLeNet at batch 1 under graph
    # replay once the kernel floor and the graph's release rate are this GPU's own?
    makespan() {  # DEVICE [--merge]: GoogLeNet's predicted makespan, us
      timeout 30 ./weft simulate data/models/googlenet.onnx --device "$1" --strategy cp-list --graph "${@:2}" --json 2>/dev/null |
        python3 -c 'import json,sys; print("%.1f" % json.load(sys.stdin)["makespan_us"])' 2>/dev/null
    }
    for dev in h200 "$measured"; do
      alone=$(makespan "$dev")
      merged=$(makespan "$dev" --merge)
      say "googlenet b1 cp-list graph, device $(basename "$dev" .json): streams alone ${alone:-?} us, merged + streams ${merged:-?} us"
    done
  else
    say "launch figures: not measured (see gpu-check.log)"
  fi
fi

# ---- 3. The table ------------------------------------------------------------------------------
strategies="sequential seed-greedy level-rr chains cp-list resource-aware"
runs=$(mktemp -d)  # per-run files stay out of $OUT (the device tool returns at most 8 files)
if want table; then
  step "weft: measured vs predicted, every strategy (--graph schedules; $iter iterations after $warmup warm-up)"
  configs=("googlenet 1" "squeezenet1_1 1" "resnet50 1" "vit_b_16 1" "ppocr_v4_det 1" "ppocr_v4_det 8")
  for cfg in "${configs[@]}"; do
    read -r model batch <<<"$cfg"
    dims=()
    if [ "$model" = ppocr_v4_det ]; then
      dims=(--dim "p2o.DynamicDimension.0=$batch" --dim p2o.DynamicDimension.1=640 --dim p2o.DynamicDimension.2=640)
    fi
    for s in $strategies; do
      if [ "$(left)" -lt 110 ]; then say "  $model b$batch $s: skipped (budget: $(left) s left)"; continue; fi
      base="$runs/$model.b$batch.$s"
      timeout "$(limit 90 100)" ./weft run "data/models/$model.onnx" "${dims[@]}" --backend cuda --device h200 --strategy "$s" --graph \
        --iterations "$iter" --warmup "$warmup" --json >"$base.run.json" 2>"$base.run.err"
      echo "$?" >"$base.rc"
      timeout 30 ./weft simulate "data/models/$model.onnx" "${dims[@]}" --device h200 --strategy "$s" --graph --json \
        >"$base.sim.json" 2>/dev/null
      cat "$base.run.err" >>"$log"
      # An operator the CUDA executor lacks fails every strategy alike: say it once.
      if grep -q "unsupported: operator" "$base.run.err"; then break; fi
    done
  done
  python3 - "$runs" "$out/weft-runs.json" "$strategies" <<'PY' 2>&1 | tee -a "$log" "$summary"
import json, os, sys
runs, dest, strategies = sys.argv[1], sys.argv[2], sys.argv[3].split()
def load(p):
    try:
        with open(p) as f:
            return json.load(f)
    except Exception:
        return None
def text(p):
    try:
        with open(p) as f:
            return f.read().strip()
    except Exception:
        return ""
configs = []
for name in sorted(os.listdir(runs)):
    if name.endswith(".rc"):
        model, batch, strategy = name[:-3].rsplit(".", 2)
        if (model, batch) not in configs:
            configs.append((model, batch))
order = ["googlenet", "squeezenet1_1", "resnet50", "vit_b_16", "ppocr_v4_det"]
configs.sort(key=lambda c: (order.index(c[0]) if c[0] in order else 99, int(c[1][1:])))
everything = []
hdr = (f"{'strategy':<15}{'streams':>8}{'events':>7}{'seq eager':>10}{'seq graph':>10}{'sch eager':>10}{'sch graph':>10}"
       f"{'vs graph':>9}{'predicted':>10}{'calibrated':>11}{'overlaps':>9}{'err vs cpu':>11}")
for model, batch in configs:
    print(f"\n{model} batch {batch[1:]}   (ms: median iteration; vs graph: sequential graph / schedule graph;"
          f" predicted: the h200 preset; calibrated: the preset given the run's own sequential node times)")
    print(hdr)
    for s in strategies:
        base = os.path.join(runs, f"{model}.{batch}.{s}")
        if not os.path.exists(base + ".rc"):
            continue
        r, p = load(base + ".run.json"), load(base + ".sim.json")
        pred = f"{p['speedup_vs_graph']:.2f}x" if p and p.get("speedup_vs_graph") is not None else "-"
        everything.append({"model": model, "batch": int(batch[1:]), "strategy": s, "run": r, "simulate": p,
                           "exit": text(base + ".rc"), "error": text(base + ".run.err")[-2000:]})
        if not r:
            err = [l for l in text(base + ".run.err").splitlines() if l.strip()]
            rc = text(base + ".rc")
            why = err[-1] if err else ("timed out" if rc == "124" else f"exit {rc}, no output")
            print(f"{s:<15} FAILED (exit {rc}): {why[:150]}   (predicted {pred})")
            continue
        e = r.get("max_abs_error_vs_cpu")
        cal = f"{r['predicted_speedup_vs_graph']:.2f}x" if r.get("predicted_speedup_vs_graph") is not None else "-"
        print(f"{s:<15}{r['streams']:>8}{r['events']:>7}{r['sequential_ms']:>10.3f}{r['sequential_graph_ms']:>10.3f}"
              f"{r['schedule_ms']:>10.3f}{r['schedule_graph_ms']:>10.3f}{r['speedup_vs_graph']:>8.2f}x{pred:>10}{cal:>11}"
              f"{r['overlapped_pairs']:>9}{('%.2e' % e) if e is not None else 'NaN':>11}")
    queues = {str(x["run"].get("max_connections")) for x in everything if x["run"] and x["model"] == model}
    if queues:
        print(f"hardware queues (CUDA_DEVICE_MAX_CONNECTIONS): {', '.join(sorted(queues))}")
with open(dest, "w") as f:
    json.dump(everything, f, indent=1)
PY
fi

# ---- 3b. A measured batch sweep ------------------------------------------------------------------
if want sweep; then
  step "weft sweep: grouped MLP, measured under CUDA Graph replay against the h200 preset's prediction"
  timeout "$(limit 45 90)" ./weft sweep data/models/grouped_mlp.onnx --batches 1,32 --strategies level-rr,cp-list \
    --backend cuda --graph --device h200 --iterations "$iter" --warmup "$warmup" 2>&1 | tee -a "$log" "$summary"
  rc=${PIPESTATUS[0]}
  [ "$rc" -ne 0 ] && say "sweep: exit $rc"
fi

# ---- 3c. Merged launches -------------------------------------------------------------------------
if want merge; then
  step "weft run --merge: merged launches against the unmerged sequential CUDA Graph (issue 19)"
  merges=$(mktemp -d)
  for cfg in "grouped_mlp 1 sequential" "grouped_mlp 32 sequential" "transformer4h 1 sequential" "transformer4h 32 sequential" \
             "googlenet 1 cp-list"; do
    read -r model batch strategy <<<"$cfg"
    if [ "$(left)" -lt 60 ]; then say "  $model b$batch: skipped (budget: $(left) s left)"; continue; fi
    dims=()
    [ "$model" != googlenet ] && dims=(--dim "batch=$batch")
    base="$merges/$model.b$batch"
    timeout "$(limit 40 50)" ./weft run "data/models/$model.onnx" "${dims[@]}" --merge --backend cuda --device h200 \
      --strategy "$strategy" --graph --iterations "$iter" --warmup "$warmup" --json >"$base.run.json" 2>"$base.run.err"
    echo "$?" >"$base.rc"
    timeout 30 ./weft simulate "data/models/$model.onnx" "${dims[@]}" --merge --device h200 --strategy "$strategy" --graph \
      --json >"$base.sim.json" 2>/dev/null
    cat "$base.run.err" >>"$log"
  done
  python3 - "$merges" <<'PY' 2>&1 | tee -a "$log" "$summary"
import json, os, sys
d = sys.argv[1]
def load(p):
    try:
        with open(p) as f:
            return json.load(f)
    except Exception:
        return None
print(f"{'model':<15}{'batch':>6}{'operators':>10}{'unmerged seq graph':>19}{'merged graph':>13}{'measured':>9}{'predicted':>10}{'err vs cpu':>11}")
for name in sorted(n[:-3] for n in os.listdir(d) if n.endswith(".rc")):
    model, batch = name.rsplit(".b", 1)
    r, p = load(f"{d}/{name}.run.json"), load(f"{d}/{name}.sim.json")
    m = (p or {}).get("merge") or {}
    pred = m.get("speedup_vs_unmerged_graph")
    pred = f"{pred:.2f}x" if pred is not None else "-"
    if not r:
        err = [l for l in open(f"{d}/{name}.run.err").read().splitlines() if l.strip()] if os.path.exists(f"{d}/{name}.run.err") else []
        rc = open(f"{d}/{name}.rc").read().strip()
        why = "timed out" if rc == "124" else (err[-1] if err else f"exit {rc}, no output")
        print(f"{model:<15}{batch:>6} FAILED: {why[:150]}   (predicted {pred})")
        continue
    rm = r.get("merge") or {}
    launches = f"{rm.get('nodes_before', '?')}->{rm.get('nodes_after', '?')}"  # nodes; a merged node may launch twice
    e = r.get("max_abs_error_vs_cpu")
    print(f"{model:<15}{batch:>6}{launches:>10}{r['sequential_graph_ms']:>17.3f}ms{r['schedule_graph_ms']:>11.3f}ms"
          f"{r['speedup_vs_graph']:>8.2f}x{pred:>10}{('%.2e' % e) if e is not None else 'NaN':>11}")
    paths = r.get("merged_paths") or {}
    print("  merged nodes ran as: " + (", ".join(f"{c} {p}" for p, c in paths.items()) or "(not reported)"))
PY
fi

# ---- 4. PyTorch baselines ----------------------------------------------------------------------
if want torch; then
  step "PyTorch/torchvision baselines (random weights, float32, TF32 off; eager and CUDA Graph replay)"
  # PyTorch uses its own wheels' libraries: leave LD_LIBRARY_PATH as the machine had it.
  env LD_LIBRARY_PATH="$machine_ldpath" PYTHONUNBUFFERED=1 timeout "$(limit 120 60)" \
    python3 torch_baseline.py --out "$out/torch.json" --batches 1 8 >"$runs/torch.txt" 2>&1
  rc=$?
  cat "$runs/torch.txt" >>"$log"
  # Library warnings stay in the log; the summary keeps the baseline's own lines.
  grep -E "^(torch|model|googlenet|squeezenet1_1|resnet50|vit_b_16|ppocr)" "$runs/torch.txt" | tee -a "$summary"
  [ "$rc" -eq 124 ] && say "torch baseline: TIMED OUT"
  [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && say "torch baseline: exit $rc: $(tail -1 "$runs/torch.txt")"
fi

# ---- 5. compute-sanitizer ----------------------------------------------------------------------
if want sanitizer; then
  step "compute-sanitizer on multi-stream runs (cp-list, 1 iteration): googlenet, and merged googlenet and transformer4h"
  sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer /opt/nvidia/*/compute-sanitizer 2>/dev/null | head -1)
  : >"$out/sanitizer.log"
  if [ -z "$sanitizer" ]; then
    say "compute-sanitizer not found"
  else
    # The merged runs (pointer-array kernels, the concatenated convolution) under memcheck too.
    for check in "memcheck googlenet" "racecheck googlenet" "memcheck googlenet --merge" "memcheck transformer4h --merge --dim batch=1"; do
      read -r tool model extra <<<"$check"
      lim=$(limit 100 0)
      if [ "$(left)" -lt 20 ]; then say "$tool $model $extra: skipped (budget)"; continue; fi
      echo "== $tool $model $extra" >>"$out/sanitizer.log"
      # shellcheck disable=SC2086  # $extra holds separate options
      timeout "$lim" "$sanitizer" --tool "$tool" --error-exitcode 9 ./weft run "data/models/$model.onnx" $extra --backend cuda \
        --strategy cp-list --iterations 1 --warmup 0 >>"$out/sanitizer.log" 2>&1
      rc=$?
      summary_line=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/sanitizer.log" | tail -1)
      case $rc in
        0) say "$tool $model $extra: clean (${summary_line:-no summary line})" ;;
        9) say "$tool $model $extra: ERRORS: $summary_line (sanitizer.log)" ;;
        124) say "$tool $model $extra: TIMED OUT after $lim s" ;;
        *) say "$tool $model $extra: exit $rc: $(grep -v '^=' "$out/sanitizer.log" | tail -1)" ;;
      esac
    done
    cat "$out/sanitizer.log" >>"$log"
  fi
fi

rm -rf "$runs" "${merges:-}"
step "done in $(elapsed) s (tests: $([ $tests_rc -eq 0 ] && echo ok || echo FAILED)); results in $out"
exit $tests_rc
