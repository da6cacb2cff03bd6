#!/usr/bin/env bash
# Builds what a GPU machine needs to run Weft's CUDA checks, on a machine that has the build
# packages (this one), into build/gpu-bundle/:
#   weft, the GPU test binaries, gpu-check.sh, torch_baseline.py, gpu_summary.py, README.txt
#   lib/      libweft_cuda.so, libweft_blas.so (OpenBLAS's static archive, shared once by every
#             program) and every shared library the programs need that is neither part of the
#             base system (glibc, libstdc++, libgcc, libz) nor NVIDIA's (CUDA driver and runtime,
#             cuBLAS, cuDNN, NVRTC, nvJitLink): libonnx, protobuf
#   data/models/  the models the tests and the table read; assets/  the device presets
#   stubs/    the stand-in modules test_cuda_module loads
# The release build (preset gpu-release: CUDA sm_90 SASS + compute_90 PTX, RUNPATH $ORIGIN/lib,
# no build path compiled in) goes to build/gpu-release. Checks at the end: the library closure
# (scripts/gpu-bundle-closure.sh), no build-machine path in any file; then the bundle is packed as
# build/gpu-bundle.tar.xz (what the device call carries) and that archive with the working tree
# must stay under 60 MiB (the device tool's limit is 64).
# Usage: scripts/gpu-bundle.sh            (env JOBS: build jobs, default 2)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
build=build/gpu-release
out=build/gpu-bundle
jobs=${JOBS:-2}
targets=(weft weft_cuda weft_blas test_cuda_check test_cuda_executor test_cuda_module weft_spawn_measure
         weft_stub_missing_library weft_stub_other_build)

# The logs go into build/ beside the build tree: on a fresh clone neither exists yet.
mkdir -p build
echo "gpu-bundle: configure ($build)"
cmake --preset gpu-release >"build/gpu-release.configure.log" 2>&1 ||
  { tail -30 build/gpu-release.configure.log; echo "gpu-bundle: configure failed" >&2; exit 1; }
[ -f "$build/build.ninja" ] && grep -q "cuda_kernels.cu" "$build/build.ninja" ||
  { echo "gpu-bundle: this configuration has no CUDA module (toolkit or cuDNN not found)" >&2; exit 1; }
echo "gpu-bundle: build (${targets[*]})"
cmake --build "$build" -j"$jobs" --target "${targets[@]}" >"build/gpu-release.build.log" 2>&1 ||
  { grep -E "error|Error" build/gpu-release.build.log | head -40; echo "gpu-bundle: build failed (build/gpu-release.build.log)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/lib" "$out/data/models" "$out/assets" "$out/stubs"
install -m 755 "$build/app/weft/weft" "$out/"
for t in test_cuda_check test_cuda_executor test_cuda_module weft_spawn_measure; do
  install -m 755 "$build/tests/gpu/$t" "$out/"
done
install -m 644 "$build"/lib/libweft_*.so "$out/lib/"   # the CUDA module, the shared OpenBLAS
[ -f "$build/tests/gpu/libweft_nvtx_counter.so" ] && install -m 644 "$build/tests/gpu/libweft_nvtx_counter.so" "$out/lib/"
install -m 644 "$build"/tests/gpu/stubs/*.so "$out/stubs/"
# The models the tests and the table read. ppocr_v4_det's external weights (4.7 MB) stay behind:
# absent weights get seeded values, as in every other test model here.
# grouped_mlp, transformer4h: the merged-launch tests (test_cuda_check, CudaMerge); grouped_mlp
# also the sweep step.
# inception_v3, randwire_ws: the headline table (with googlenet and resnet50).
for m in googlenet squeezenet1_1 resnet50 mobilenet_v3_large vit_b_16 ppocr_v4_det grouped_mlp transformer4h inception_v3 randwire_ws; do
  cp "tests/data/models/$m.onnx" "$out/data/models/"
done
# The headline models' ONNX Runtime test data (tests/data/test_data): the GPU's outputs are checked
# against ORT's as well as against the CPU reference (weft run --test-data).
for m in googlenet inception_v3 randwire_ws resnet50; do
  mkdir -p "$out/data/test_data/$m"
  cp -r "tests/data/test_data/$m/test_data_set_0" "$out/data/test_data/$m/"
  [ -f "tests/data/test_data/$m/data.json" ] && cp "tests/data/test_data/$m/data.json" "$out/data/test_data/$m/"
done
cp -r assets/devices "$out/assets/"
install -m 755 scripts/gpu-check.sh "$out/gpu-check.sh"
install -m 644 scripts/gpu-torch-baseline.py "$out/torch_baseline.py"
install -m 644 scripts/gpu-summary.py "$out/gpu_summary.py"
install -m 755 scripts/gpu-bundle-closure.sh "$out/closure.sh"
strip --strip-unneeded "$out"/weft "$out"/test_cuda_* "$out"/weft_spawn_measure "$out"/lib/*.so

# Every library the programs need, except the base system's and NVIDIA's: copy it into lib/ under
# its soname. ldd resolves the whole closure on this machine (NVIDIA's libraries from the toolkit).
is_provided() {  # base system or NVIDIA: not bundled
  case "$1" in
    linux-vdso.so*|ld-linux*|libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libutil.so*|libresolv.so*) return 0 ;;
    libstdc++.so*|libgcc_s.so*|libz.so*) return 0 ;;
    libcuda.so*|libcudart.so*|libcublas.so*|libcublasLt.so*|libcudnn*.so*|libnvrtc*.so*|libnvJitLink.so*) return 0 ;;
  esac
  return 1
}
for f in "$out"/weft "$out"/test_cuda_* "$out"/lib/libweft_cuda.so "$out"/lib/libweft_nvtx_counter.so; do
  [ -f "$f" ] || continue
  while read -r name _ path _; do
    is_provided "$name" && continue
    [ -f "$out/lib/$name" ] && continue
    if [ -z "$path" ] || [ "$path" = "not" ]; then echo "gpu-bundle: $f needs $name, which ldd cannot find here" >&2; exit 1; fi
    case "$name" in libweft_*) continue ;; esac  # the bundle's own, found through RUNPATH
    install -m 644 "$(readlink -f "$path")" "$out/lib/$name"
    strip --strip-unneeded "$out/lib/$name"
  done < <(LD_LIBRARY_PATH="$out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$f" | awk '/=>/ {print $1, $2, $3}')
done

cat >"$out/README.txt" <<EOF
Weft GPU bundle, built $(date -u +%Y-%m-%d) from commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown).
Run on a machine with an NVIDIA GPU and NVIDIA's libraries (CUDA toolkit or PyTorch's wheels):
  ./gpu-check.sh            (results under \$OUT, else ./results; see docs/gpu-run.md)
EOF

echo "gpu-bundle: checks"
scripts/gpu-bundle-closure.sh "$out"
# No path of this machine's checkout or build tree may be compiled into the bundle.
if grep -rlF -e "$root" "$out" >/dev/null 2>&1; then
  echo "gpu-bundle: these files contain the build path $root:" >&2
  grep -rlF -e "$root" "$out" >&2
  exit 1
fi
size=$(du -sb "$out" | awk '{print $1}')
echo "gpu-bundle: $out is $((size / 1024 / 1024)) MiB ($size bytes)"

# What the device call carries: the bundle as one xz archive (about an eighth of its size; the
# call unpacks it on the device), beside the working tree that travels with every call. Both
# together must stay under the device tool's 64 MiB: the check fails here, with the figures,
# rather than on the device.
archive="$out.tar.xz"
tar -C "$(dirname "$out")" -cJf "$archive.tmp" "$(basename "$out")" && mv "$archive.tmp" "$archive"
packed=$(stat -c %s "$archive")
tree=$( { git ls-files -z; git ls-files -z --others --exclude-standard; } | xargs -0 -r stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
travel=$((packed + tree))
echo "gpu-bundle: $archive is $((packed / 1024 / 1024)) MiB; with the working tree ($((tree / 1024 / 1024)) MiB) a device call carries $((travel / 1024 / 1024)) MiB of 64"
if [ "$travel" -ge $((60 * 1024 * 1024)) ]; then
  echo "gpu-bundle: a device call would carry $travel bytes, over the 60 MiB this script allows (the device tool's limit is 64 MiB)" >&2
  exit 1
fi
