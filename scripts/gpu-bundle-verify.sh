#!/usr/bin/env bash
# Runs the GPU bundle here, on a machine without a GPU, where the loader can find nothing but the
# bundle, the base system and NVIDIA's libraries: a chroot that holds only glibc, libstdc++, libgcc,
# libz (this machine's, hard-linked), the bundle, and NVIDIA's libraries laid out once as a CUDA
# toolkit (usr/local/cuda/lib64) and once as PyTorch's wheels
# (site-packages/nvidia/{cublas,cuda_runtime,cuda_nvrtc,nvjitlink,cudnn}/lib), both hard-linked from
# this machine's toolkit. No libonnx, protobuf, OpenBLAS or gtest exists in it. Checks, for each
# layout: `weft devices` exits 3 saying "no CUDA device" (the module and cuBLAS/cuDNN loaded: not
# a loader error), `weft run --backend cpu` works, the GPU tests pass or skip as on this machine;
# and gpu-check.sh (outside the chroot: it needs bash and python3) finds the wheels' libraries
# through a site-packages folder and completes every step with results in a scratch $OUT.
# Needs root (chroot, and a private mount namespace for the chroot's /proc, which the loader reads
# to expand $ORIGIN). Usage: scripts/gpu-bundle-verify.sh [BUNDLE] (default build/gpu-bundle)
set -uo pipefail
if [ -z "${WEFT_VERIFY_NS:-}" ]; then
  WEFT_VERIFY_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi
root=$(cd "$(dirname "$0")/.." && pwd)
bundle=$(readlink -f "${1:-$root/build/gpu-bundle}")
cuda=${CUDA_LIB:-/usr/local/cuda/lib64}
[ -x "$bundle/weft" ] || { echo "verify: no bundle at $bundle"; exit 2; }
scratch=$(mktemp -d /tmp/weft-bundle-verify.XXXXXX)
trap 'umount "$scratch/root/proc" "$scratch/root/dev/null" 2>/dev/null; rm -rf "$scratch"' EXIT
fails=0
check() {  # check NAME EXPECTED_RC PATTERN -- command...
  local name=$1 want=$2 pattern=$3; shift 4
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" = "$want" ] && { [ -z "$pattern" ] || grep -qE "$pattern" <<<"$out"; }; then
    echo "ok    $name (exit $rc)"
  else
    echo "FAIL  $name: exit $rc (wanted $want${pattern:+, output matching '$pattern'})"
    echo "$out" | tail -15 | sed 's/^/      /'
    fails=$((fails + 1))
  fi
  printf '%s\n' "$out" >"$scratch/last.out"
}
link_into() {  # link_into DEST_DIR FILES...: hard links under the files' own names
  local dest=$1; shift
  mkdir -p "$dest"
  for f in "$@"; do ln -f "$(readlink -f "$f")" "$dest/$(basename "$f")"; done
}

sys="$scratch/root"
mkdir -p "$sys/lib64" "$sys/lib/x86_64-linux-gnu" "$sys/tmp" "$sys/proc"
mount -t proc proc "$sys/proc" || { echo "verify: cannot mount /proc in the chroot"; exit 2; }
mkdir -p "$sys/dev" && touch "$sys/dev/null" && mount --bind /dev/null "$sys/dev/null"
ln -f "$(readlink -f /lib64/ld-linux-x86-64.so.2)" "$sys/lib64/ld-linux-x86-64.so.2"
for l in libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libstdc++.so.6 libgcc_s.so.1 libz.so.1; do
  ln -f "$(readlink -f "/lib/x86_64-linux-gnu/$l")" "$sys/lib/x86_64-linux-gnu/$l"
done
# A shell and env for the tests that run weft through popen (test_cuda_module); dash needs libc only.
mkdir -p "$sys/bin" "$sys/usr/bin"
ln -f "$(readlink -f /bin/sh)" "$sys/bin/sh"
ln -f "$(readlink -f /usr/bin/env)" "$sys/usr/bin/env"
cp -al "$bundle" "$sys/bundle"
nv() { ls "$cuda"/$1 2>/dev/null; }
# Toolkit layout.
link_into "$sys/usr/local/cuda/lib64" $(nv 'libcudart.so.*') $(nv 'libcublas.so.*') $(nv 'libcublasLt.so.*') $(nv 'libcudnn*.so.*') \
  $(nv 'libnvrtc*.so.*') $(nv 'libnvJitLink.so.*')
# Wheel layout (the names of the CUDA 12 wheels; CUDA 13's put the toolkit's libraries in nvidia/cu13/lib).
sp="$sys/venv/lib/python3.12/site-packages"
link_into "$sp/nvidia/cublas/lib" $(nv 'libcublas.so.*') $(nv 'libcublasLt.so.*')
link_into "$sp/nvidia/cuda_runtime/lib" $(nv 'libcudart.so.*')
link_into "$sp/nvidia/cuda_nvrtc/lib" $(nv 'libnvrtc*.so.*')
link_into "$sp/nvidia/nvjitlink/lib" $(nv 'libnvJitLink.so.*')
link_into "$sp/nvidia/cudnn/lib" $(nv 'libcudnn*.so.*')
wheels="/venv/lib/python3.12/site-packages/nvidia"
wheel_path="$wheels/cublas/lib:$wheels/cuda_runtime/lib:$wheels/cuda_nvrtc/lib:$wheels/nvjitlink/lib:$wheels/cudnn/lib"
echo "verify: chroot $sys: $(find "$sys/lib" "$sys/lib64" -type f | wc -l) base files, bundle $(du -sh "$bundle" | cut -f1)"

for layout in toolkit wheels; do
  ldpath=/usr/local/cuda/lib64
  [ "$layout" = wheels ] && ldpath=$wheel_path
  in_root() { chroot "$sys" /usr/bin/env -i "LD_LIBRARY_PATH=$ldpath" "WEFT_ASSETS_DIR=/bundle/assets" "$@"; }
  echo "-- $layout layout (LD_LIBRARY_PATH=$ldpath)"
  check "$layout: weft help" 0 "usage: weft" -- in_root /bundle/weft help
  check "$layout: weft devices says no CUDA device" 3 "no CUDA device: " -- in_root /bundle/weft devices
  grep -E "CUDA module|driver CUDA|loaded|cannot" "$scratch/last.out" | sed 's/^/      /'
  check "$layout: weft run --backend cuda exits 3" 3 "no CUDA device" -- \
    in_root /bundle/weft run /bundle/data/models/squeezenet1_1.onnx --backend cuda --iterations 1 --warmup 0
  check "$layout: weft run --backend cpu" 0 "speedup" -- \
    in_root /bundle/weft run /bundle/data/models/squeezenet1_1.onnx --backend cpu --iterations 1 --warmup 0
  check "$layout: weft analyze ppocr (symbolic dims bound)" 0 "operators" -- \
    in_root /bundle/weft analyze /bundle/data/models/ppocr_v4_det.onnx --dim p2o.DynamicDimension.0=1 \
    --dim p2o.DynamicDimension.1=640 --dim p2o.DynamicDimension.2=640
  check "$layout: test_cuda_check" 0 "PASSED" -- in_root /bundle/test_cuda_check
  check "$layout: test_cuda_module" 0 "PASSED" -- in_root /bundle/test_cuda_module
  grep "startup" "$scratch/last.out" | sed 's/^/      /'
  check "$layout: test_cuda_executor skips without a GPU" 77 "no CUDA device" -- in_root /bundle/test_cuda_executor
done
echo "-- the module missing a library: hide cuDNN"
check "weft devices names libcudnn" 3 "libcudnn.so.9: cannot open shared object file" -- \
  chroot "$sys" /usr/bin/env -i LD_LIBRARY_PATH="$wheels/cublas/lib" /bundle/weft devices
check "weft run --backend cuda names libcudnn" 3 "libcudnn.so.9" -- \
  chroot "$sys" /usr/bin/env -i LD_LIBRARY_PATH="$wheels/cublas/lib" /bundle/weft run /bundle/data/models/squeezenet1_1.onnx --backend cuda

echo "-- gpu-check.sh with the wheels found through a site-packages folder (no GPU: GPU steps report it)"
out="$scratch/out"
mkdir -p "$out"
OUT="$out" NVIDIA_SITE_PACKAGES="$sp" NVIDIA_TOOLKIT_DIRS=/nonexistent BUDGET=200 ITER=2 WARMUP=0 "$bundle/gpu-check.sh" >"$scratch/check.txt" 2>&1
echo "      gpu-check.sh exit $? ; files in \$OUT: $(cd "$out" && ls | tr '\n' ' ')"
if grep -q "$sp/nvidia/cudnn/lib" "$out/summary.txt" && grep -q "no CUDA device" "$out/summary.txt" &&
   [ -s "$out/weft-runs.json" ] && [ -s "$out/tests.log" ] && grep -q "done in" "$out/summary.txt"; then
  echo "ok    gpu-check.sh found the wheels' libraries and completed every step"
else
  echo "FAIL  gpu-check.sh (summary below)"; fails=$((fails + 1))
fi
sed 's/^/      /' "$out/summary.txt" | head -60
echo "verify: $fails failure(s)"
exit $((fails > 0))
