#!/usr/bin/env bash
# The one-shot check of Weft's CUDA backend on a lent GPU machine, run from the GPU bundle
# (scripts/gpu-bundle.sh builds it; docs/gpu-run.md gives the exact device call). Nothing is
# built there: the machine needs an NVIDIA driver, NVIDIA's libraries (PyTorch's wheels, else a
# CUDA toolkit) and python3 for the summaries.
#
# A GPU is lent rarely and for minutes, so the steps run in order of value, each under its own
# time limit, and every result is written the moment it is measured (one JSON line per run in
# weft-runs.jsonl, one row in summary.txt): a machine taken back mid-way still returns what ran.
# `--plan` prints the steps, their limits and the total without running anything (no GPU needed).
#
# Results go to $OUT when set (the device tool brings that folder back), else ./results; at most
# 8 files, none over 16 MiB, no folders: summary.txt (the compact tables), gpu-check.log
# (everything, every failing run's stderr), weft-runs.jsonl, torch.json, tests.log,
# sanitizer.log (at most 2 MiB), h200-measured.json (the h200 preset with measured launch figures).
#
# Usage: gpu-check.sh [--plan]
#   env: STEPS (a subset of the step names, in any order; they run in the table's order),
#        ITER (30) and WARMUP (10) timed and warm-up iterations, BUDGET (the plan's total, s),
#        WEFT_NVIDIA_LIBS (colon-separated library folders: skip the search),
#        NVIDIA_SITE_PACKAGES (a site-packages folder besides python3's), NVIDIA_TOOLKIT_DIRS
set -uo pipefail

# ---- The plan: name, limit (s), what it measures; in order of value -----------------------------
plan=(
  "setup      15 the machine: NVIDIA libraries (wheels first), driver, kernel, clocks; weft devices"
  "smoke      25 the CPU reference twice (OPENBLAS_CORETYPE=Haswell if it crashes or disagrees), one small CUDA run"
  "table     140 headline: googlenet, inception_v3, randwire_ws, resnet50 at batch 1: sequential eager and CUDA Graph, the advised schedule as a graph, predicted beside measured"
  "torch      90 PyTorch baseline: the same architectures at batch 1, eager and CUDA Graph"
  "merge      35 merged launches: the grouped MLP at batch 1 and 32 against the unmerged sequential CUDA Graph"
  "split      30 micro-batch split: resnet50 at batch 8 (split-overlap, --split auto) against the unsplit run"
  "launch     15 launch figures measured with empty kernels against the h200 preset"
  "sweep      30 a measured batch sweep of the grouped MLP under CUDA Graph replay"
  "tests      45 the GPU test binaries"
  "sanitizer  45 compute-sanitizer memcheck and racecheck on a multi-stream run (skipped on gVisor)"
)
all_steps=$(for p in "${plan[@]}"; do echo "${p%% *}"; done | tr '\n' ' ')
steps=${STEPS:-$all_steps}
want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
cap_of() { local p; for p in "${plan[@]}"; do read -r n c _ <<<"$p"; [ "$n" = "$1" ] && echo "$c" && return; done; echo 0; }
planned_total() { local t=0 p n c; for p in "${plan[@]}"; do read -r n c _ <<<"$p"; want "$n" && t=$((t + c)); done; echo "$t"; }
# The device call: the plan's total plus this margin for the command's start and the transfers;
# the machine's own start comes before it. docs/gpu-run.md and the plan test read these.
kCallMargin=60
kDeviceCommand='mkdir -p /tmp/wb && (tar -xJf build/gpu-bundle.tar.xz -C /tmp/wb || python3 -c "import sys,tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" build/gpu-bundle.tar.xz /tmp/wb) && bash /tmp/wb/gpu-bundle/gpu-check.sh'
kMachineStart=120
kDeviceSeconds=900

if [ "${1:-}" = "--plan" ]; then
  total=$(planned_total)
  call=$((total + kCallMargin))
  echo "gpu-check plan (STEPS=\"$(echo $steps)\"):"
  printf '  %-10s %6s  %s\n' step limit what
  for p in "${plan[@]}"; do
    read -r n c what <<<"$p"
    want "$n" && printf '  %-10s %4d s  %s\n' "$n" "$c" "$what"
  done
  echo "total: $total s ($(awk -v t="$total" 'BEGIN {printf "%.1f", t / 60}') min); device call timeout_s: $call"
  # The call unpacks the bundle (scripts/gpu-bundle.sh packs it as one xz archive) and runs this script from it.
  echo "device call: command: ${STEPS:+export STEPS=\"$(echo $steps)\"; }$kDeviceCommand"
  echo "             carry: [\"build/gpu-bundle.tar.xz\"], timeout_s: $call"
  echo "machine start (up to $kMachineStart s) + the call: $((kMachineStart + call)) s of $kDeviceSeconds s; left for a rerun: $((kDeviceSeconds - kMachineStart - call)) s"
  exit 0
fi

here=$(cd "$(dirname "$0")" && pwd)
# Exec bits can be lost in transit: restore them before anything is run.
chmod +x "$here"/weft "$here"/test_cuda_* "$here"/weft_spawn_measure "$here"/*.sh 2>/dev/null
if [ ! -f "$here/weft" ]; then
  # Run from a checkout's scripts/: use the bundle built beside it.
  if [ -f "$here/../build/gpu-bundle/weft" ]; then exec bash "$here/../build/gpu-bundle/gpu-check.sh" "$@"; fi
  echo "gpu-check: no weft beside this script; build the bundle first (scripts/gpu-bundle.sh)" >&2
  exit 2
fi
cd "$here"
out=${OUT:-$here/results}
mkdir -p "$out"
iter=${ITER:-30}
warmup=${WARMUP:-10}
budget=${BUDGET:-$(planned_total)}
log="$out/gpu-check.log"
summary="$out/summary.txt"
runs_file="$out/weft-runs.jsonl"
: >"$log"
: >"$summary"
: >"$runs_file"
work=$(mktemp -d)  # per-run files stay out of $OUT (the device tool returns at most 8 files)
trap 'rm -rf "$work"' EXIT
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
say() { echo "$*" | tee -a "$log" "$summary"; }
note() { echo "$*" >>"$log"; }
summarise() { python3 gpu_summary.py "$@" 2>>"$log"; }

# A step runs until its deadline: its own limit, cut to what is left of the budget.
step_deadline=0
begin() {
  local cap left
  cap=$(cap_of "$1")
  left=$((budget - $(elapsed)))
  [ "$left" -lt "$cap" ] && cap=$left
  step_deadline=$(( $(date +%s) + cap ))
  say ""
  if [ "$cap" -lt 3 ]; then say "== $1: skipped (budget spent: $(elapsed) s of $budget s)"; return 1; fi
  say "== $1: ${*:2} ($(elapsed) s in, limit $cap s)"
}
# Seconds a command may take: its own cap, cut to the step's deadline (0 when none is left).
within() { local l=$(( step_deadline - $(date +%s) )); [ "$l" -gt "$1" ] && l=$1; [ "$l" -lt 0 ] && l=0; echo "$l"; }
# Runs a command under `within CAP`; says so and returns 124 when the step has no time left.
limited() {
  local cap=$1 l
  shift
  l=$(within "$cap")
  if [ "$l" -lt 2 ]; then echo "gpu-check: not started: the step's time was spent ($*)" >&2; return 124; fi
  timeout -k 3 "$l" "$@"
}

export WEFT_ASSETS_DIR="$here/assets" WEFT_TEST_DATA_DIR="$here/data" WEFT_CLI="$here/weft"
export WEFT_SPAWN_MEASURE="$here/weft_spawn_measure"

# ---- NVIDIA's libraries: PyTorch's wheels first (PyTorch proves that set consistent), the toolkit
# as the fallback. -------------------------------------------------------------------------------
nvidia_dirs() {
  if [ -n "${WEFT_NVIDIA_LIBS:-}" ]; then echo "$WEFT_NVIDIA_LIBS" | tr ':' '\n'; return; fi
  local d sp
  {
    [ -n "${NVIDIA_SITE_PACKAGES:-}" ] && echo "$NVIDIA_SITE_PACKAGES"
    timeout 10 python3 -c 'import site; print("\n".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null
    ls -d /opt/*/.venv/lib/python3*/site-packages /usr/local/lib/python3*/dist-packages 2>/dev/null
  } | while read -r sp; do
    # cu13 (cudart, cuBLAS, NVRTC, nvJitLink in one wheel) before cuDNN, then any other.
    for d in "$sp"/nvidia/cu1*/lib "$sp"/nvidia/cudnn/lib "$sp"/nvidia/*/lib; do
      [ -d "$d" ] && ls "$d"/*.so* >/dev/null 2>&1 && readlink -f "$d"
    done
  done
  for d in ${NVIDIA_TOOLKIT_DIRS:-"${CUDA_HOME:-/usr/local/cuda}/lib64" /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib}; do
    [ -d "$d" ] && ls "$d"/libcublas.so* >/dev/null 2>&1 && readlink -f "$d"
  done
}
# The GPU's state: kernel, clocks, power, temperature, throttle reasons (never changed here).
gpu_state() {
  say "$1: kernel $(uname -r) ($(uname -v | cut -c1-60))$(case "$(uname -r)" in 4.4.0*) echo ", gVisor" ;; esac)"
  local q="clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.draw,power.limit,temperature.gpu,pstate"
  timeout 10 nvidia-smi --query-gpu="$q,clocks_event_reasons.active" --format=csv 2>/dev/null | tee -a "$log" "$summary" ||
    timeout 10 nvidia-smi --query-gpu="$q,clocks_throttle_reasons.active" --format=csv 2>&1 | tee -a "$log" "$summary" ||
    say "  nvidia-smi: no answer"
}
# One measured run: weft run (and weft simulate for the preset's prediction) appended as a record
# and a summary row as soon as it ends. Args: step model batch strategy streams cap [weft options...]
measure() {
  local step=$1 model=$2 batch=$3 strategy=$4 streams=$5 cap=$6
  shift 6
  local base="$work/$step.$model.b$batch.$strategy" start rc
  local shape=(--strategy "$strategy")
  [ -n "$streams" ] && shape+=(--streams "$streams")
  start=$(date +%s.%N)
  limited "$cap" ./weft run "data/models/$model.onnx" "$@" "${shape[@]}" --backend cuda --device h200 --graph \
    --iterations "$iter" --warmup "$warmup" --json >"$base.run.json" 2>"$base.run.err"
  rc=$?
  local seconds
  seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
  # simulate takes the model options alone (not the run's --test-data, --merge is a schedule option both take).
  local sim_args=() a skip=0
  for a in "$@"; do
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    case "$a" in --test-data) skip=1; continue ;; esac
    sim_args+=("$a")
  done
  limited 20 ./weft simulate "data/models/$model.onnx" "${sim_args[@]}" "${shape[@]}" --device h200 --graph --json \
    >"$base.sim.json" 2>>"$log"
  { echo "-- weft run $model $* ${shape[*]} (exit $rc, $seconds s)"; cat "$base.run.err"; } >>"$log"
  summarise record "$runs_file" step="$step" model="$model" batch="$batch" strategy="$strategy" exit="$rc" \
    seconds="$seconds" run="$base.run.json" simulate="$base.sim.json" stderr="$base.run.err" | tee -a "$log" "$summary"
}
# Model options: a symbolic batch bound where the model has one.
dims_for() {
  case "$1" in
    inception_v3|randwire_ws|grouped_mlp|transformer4h) echo "--dim batch=$2" ;;
    *) [ "$2" != 1 ] && echo "--batch $2" ;;
  esac
}

# ---- setup -----------------------------------------------------------------------------------
mapfile -t libdirs < <(nvidia_dirs | awk 'NF && !seen[$0]++')
nvpath=$(IFS=:; echo "${libdirs[*]}")
machine_ldpath=${LD_LIBRARY_PATH:-}
export LD_LIBRARY_PATH="$nvpath${machine_ldpath:+:$machine_ldpath}"
cuda_ok=1
if want setup && begin setup "the machine"; then
  say "bundle: $(head -1 "$here/README.txt" 2>/dev/null); plan total $(planned_total) s, budget $budget s; $iter iterations after $warmup warm-up"
  timeout 10 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>&1 |
    tee -a "$log" "$summary" || say "nvidia-smi: failed or absent"
  gpu_state "before the table"
  say "library folders, in search order (LD_LIBRARY_PATH): ${nvpath:-none found}"
  for d in "${libdirs[@]}"; do note "  $d: $(cd "$d" && ls libcudart.so.* libcublas*.so.* libcudnn.so.* libnvrtc.so.* 2>/dev/null | tr '\n' ' ')"; done
  # Which files and versions weft actually loaded ("loaded ..." lines).
  limited 30 ./weft devices 2>&1 | tee -a "$log" | grep -E "^  [0-9]|no CUDA|cannot|CUDA module|driver CUDA|loaded|warning" | tee -a "$summary"
  [ "${PIPESTATUS[0]}" -eq 0 ] || { cuda_ok=0; say "weft devices failed: the CUDA steps will say why, one by one"; }
  [ -x ./closure.sh ] && { ./closure.sh "$here" >>"$log" 2>&1 && say "library closure: ok" || say "library closure: FAILED (gpu-check.log)"; }
fi

# ---- smoke: the CPU reference the GPU runs are checked against, then one small CUDA run ---------
cpu_twice() {  # exit 0 when two CPU runs of squeezenet both succeed and agree bit for bit
  local a b
  for i in 1 2; do
    limited 8 ./weft run data/models/squeezenet1_1.onnx --backend cpu --strategy cp-list --iterations 1 --warmup 0 --rounds 1 \
      --json >"$work/cpu$i.json" 2>>"$log" || { note "cpu run $i: exit $?"; return 1; }
  done
  a=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["outputs_digest"])' "$work/cpu1.json" 2>>"$log")
  b=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["outputs_digest"])' "$work/cpu2.json" 2>>"$log")
  [ -n "$a" ] && [ "$a" = "$b" ]
}
if want smoke && begin smoke "CPU reference, one small CUDA run"; then
  if cpu_twice; then
    say "CPU reference: two runs agree (OpenBLAS core: ${OPENBLAS_CORETYPE:-detected})"
  else
    export OPENBLAS_CORETYPE=Haswell
    if cpu_twice; then say "CPU reference: crashed or disagreed with OpenBLAS's own choice of core; OPENBLAS_CORETYPE=Haswell from here on"
    else say "CPU reference: FAILED also with OPENBLAS_CORETYPE=Haswell: every 'err' column below is suspect (gpu-check.log)"; fi
  fi
  summarise header | tee -a "$log" "$summary"
  measure smoke squeezenet1_1 1 cp-list "" 15
fi

# ---- table: the headline rows ------------------------------------------------------------------
if want table && begin table "headline rows (weft run --graph; the advised schedule)"; then
  summarise header | tee -a "$log" "$summary"
  for cfg in "googlenet 1" "inception_v3 1" "randwire_ws 1" "resnet50 1"; do
    read -r model batch <<<"$cfg"
    read -ra dims <<<"$(dims_for "$model" "$batch")"
    # The advised schedule (weft advise on the h200 preset): its strategy and stream count.
    limited 15 ./weft advise "data/models/$model.onnx" "${dims[@]}" --device h200 --json >"$work/$model.advise.json" 2>>"$log"
    read -r strategy streams < <(python3 -c 'import json,sys
e = json.load(open(sys.argv[1]))["advice_evidence"]
print(e.get("best_strategy") or "cp-list", e.get("best_streams") or "")' "$work/$model.advise.json" 2>>"$log" || echo "cp-list")
    note "advice for $model: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["advice"])' "$work/$model.advise.json" 2>&1)"
    # ONNX Runtime's outputs for the same weights and inputs, where the bundle has them.
    tested=()
    [ -d "data/test_data/$model" ] && tested=(--test-data "data/test_data/$model")
    measure table "$model" "$batch" "${strategy:-cp-list}" "${streams:-}" 45 "${dims[@]}" "${tested[@]}"
  done
  gpu_state "after the table"
fi

# ---- torch: the PyTorch baseline of the same architectures -------------------------------------
if want torch && begin torch "PyTorch/torchvision, batch 1, float32, TF32 off, cudnn.benchmark off"; then
  # PyTorch uses its own wheels' libraries: LD_LIBRARY_PATH as the machine had it. The script
  # rewrites torch.json after each model.
  limited 90 env LD_LIBRARY_PATH="$machine_ldpath" PYTHONUNBUFFERED=1 \
    python3 torch_baseline.py --out "$out/torch.json" --batches 1 --models googlenet inception_v3 resnet50 >"$work/torch.txt" 2>&1
  rc=$?
  cat "$work/torch.txt" >>"$log"
  grep -E "^(torch|model|googlenet|inception_v3|resnet50|randwire)" "$work/torch.txt" | tee -a "$summary"
  [ "$rc" -eq 124 ] && say "torch baseline: TIMED OUT (torch.json holds the models done)"
  [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && say "torch baseline: exit $rc: $(tail -1 "$work/torch.txt")"
  summarise torch "$runs_file" "$out/torch.json" | tee -a "$log" "$summary"
fi

# ---- merge, split ------------------------------------------------------------------------------
if want merge && begin merge "weft run --merge (sequential) against the unmerged sequential CUDA Graph"; then
  for batch in 1 32; do
    measure merge grouped_mlp "$batch" sequential "" 15 --dim "batch=$batch" --merge
  done
fi
if want split && begin split "weft run --batch 8 --split auto (split-overlap) against the unsplit model"; then
  measure split resnet50 8 split-overlap "" 28 --batch 8 --split auto
fi

# ---- launch figures ----------------------------------------------------------------------------
if want launch && begin launch "empty kernels (weft calibrate --backend cuda) against the h200 preset"; then
  measured="$out/h200-measured.json"
  limited 12 ./weft calibrate --backend cuda --device h200 -o "$measured" 2>&1 | tee -a "$log" | grep -vE '^[{}]|^  "' | tee -a "$summary"
  [ -s "$measured" ] || say "launch figures: not measured (gpu-check.log)"
fi

# ---- sweep -------------------------------------------------------------------------------------
if want sweep && begin sweep "grouped MLP at batch 1 and 32 (weft sweep --backend cuda --graph)"; then
  limited 30 ./weft sweep data/models/grouped_mlp.onnx --batches 1,32 --strategies level-rr,cp-list --backend cuda --graph --device h200 \
    --iterations "$iter" --warmup "$warmup" 2>&1 | tee -a "$log" "$summary"
  rc=${PIPESTATUS[0]}
  [ "$rc" -ne 0 ] && say "sweep: exit $rc"
fi

# ---- GPU tests ---------------------------------------------------------------------------------
tests_rc=0
if want tests && begin tests "test_cuda_check, test_cuda_module, test_cuda_executor"; then
  : >"$out/tests.log"
  for t in test_cuda_check test_cuda_module test_cuda_executor; do
    limited 30 "./$t" >>"$out/tests.log" 2>&1
    rc=$?
    case $rc in
      0) verdict="passed" ;;
      77) verdict="skipped (exit 77: $(grep -m1 'skipped:' "$out/tests.log" | sed 's/.*skipped: //'))" ;;
      124) verdict="TIMED OUT or not started (step time spent)"; tests_rc=1 ;;
      *) verdict="FAILED (exit $rc)"; tests_rc=1 ;;
    esac
    say "$(printf '%-20s %s' "$t" "$verdict")"
  done
  grep -E "^\[  FAILED  \]|Failure" "$out/tests.log" | sort -u | head -20 | tee -a "$summary" >>"$log"
fi

# ---- compute-sanitizer -------------------------------------------------------------------------
# racecheck sees shared-memory hazards only; the evidence for cross-stream ordering is each run's
# comparison with the sequential and CPU outputs (docs/gpu.md).
if want sanitizer && begin sanitizer "memcheck and racecheck, googlenet cp-list, 1 iteration"; then
  sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer /opt/nvidia/*/compute-sanitizer 2>/dev/null | head -1)
  slog="$work/sanitizer.log"
  : >"$slog"
  case "$(uname -r)" in
    4.4.0*) say "compute-sanitizer: skipped (gVisor kernel $(uname -r): the sanitizer cannot attach there)" ;;
    *)
      if [ -z "$sanitizer" ]; then
        say "compute-sanitizer: not found"
      else
        for check in "memcheck googlenet" "racecheck googlenet" "memcheck googlenet --merge"; do
          read -r tool model extra <<<"$check"
          echo "== $tool $model $extra" >>"$slog"
          # No blocking rerun under the sanitizer: it reports the fault itself (WEFT_CUDA_RERUN=1
          # marks this process as the rerun already).
          # shellcheck disable=SC2086  # $extra holds separate options
          limited 20 env WEFT_CUDA_RERUN=1 "$sanitizer" --tool "$tool" --print-limit 20 --error-exitcode 9 ./weft run "data/models/$model.onnx" \
            $extra --backend cuda --strategy cp-list --iterations 1 --warmup 0 --rounds 1 >>"$slog" 2>&1
          rc=$?
          line=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$slog" | tail -1)
          case $rc in
            0) say "$tool $model $extra: clean (${line:-no summary line})" ;;
            9) say "$tool $model $extra: ERRORS: $line (sanitizer.log)" ;;
            124) say "$tool $model $extra: TIMED OUT or not started (step time spent)" ;;
            *) say "$tool $model $extra: exit $rc: $(grep -v '^=' "$slog" | tail -1)" ;;
          esac
        done
      fi
      ;;
  esac
  head -c $((2 * 1024 * 1024)) "$slog" >"$out/sanitizer.log"
fi

# ---- the whole table again, then what comes back -----------------------------------------------
say ""
say "== all runs ($(elapsed) s in)"
summarise table "$runs_file" | tee -a "$log" "$summary"
say ""
say "== done in $(elapsed) s (tests: $([ $tests_rc -eq 0 ] && echo ok || echo FAILED)); results in $out"
# The device tool returns at most 8 plain files of 16 MiB each: keep the log's end if it grew.
for f in "$out"/*; do
  [ -f "$f" ] || continue
  if [ "$(stat -c %s "$f")" -gt $((15 * 1024 * 1024)) ]; then
    tail -c $((15 * 1024 * 1024)) "$f" >"$work/cut" && mv "$work/cut" "$f" && echo "(cut to its last 15 MiB)" >>"$f"
  fi
done
exit $tests_rc
