#!/usr/bin/env bash
# Checks the GPU bundle's library closure without loading anything: every library that a program
# or library in BUNDLE needs (ELF DT_NEEDED, read by readelf) is in BUNDLE/lib, part of the base
# system (glibc, libstdc++, libgcc, libz) or NVIDIA's (CUDA driver and runtime, cuBLAS, cuDNN,
# NVRTC, nvJitLink); programs have RUNPATH $ORIGIN/lib, the module $ORIGIN; no RUNPATH names an
# absolute folder. Exit 0 when closed, 1 naming each gap, 77 when BUNDLE was not built.
# Usage: scripts/gpu-bundle-closure.sh [BUNDLE]   (default build/gpu-bundle)
set -uo pipefail
bundle=${1:-$(cd "$(dirname "$0")/.." && pwd)/build/gpu-bundle}
if [ ! -x "$bundle/weft" ]; then echo "gpu-bundle-closure: no bundle at $bundle (scripts/gpu-bundle.sh builds it)"; exit 77; fi
command -v readelf >/dev/null || { echo "gpu-bundle-closure: readelf not found"; exit 77; }
base_or_nvidia() {
  case "$1" in
    ld-linux*|libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libutil.so.*|libresolv.so.*) return 0 ;;
    libstdc++.so.*|libgcc_s.so.*|libz.so.*) return 0 ;;
    libcuda.so.*|libcudart.so.*|libcublas.so.*|libcublasLt.so.*|libcudnn*.so.*|libnvrtc*.so.*|libnvJitLink.so.*) return 0 ;;
  esac
  return 1
}
gaps=0
checked=0
for f in "$bundle"/* "$bundle"/lib/*; do
  [ -f "$f" ] && head -c 4 "$f" | grep -q "ELF" || continue
  checked=$((checked + 1))
  dyn=$(readelf -d "$f" 2>/dev/null)
  while read -r lib; do
    [ -z "$lib" ] && continue
    base_or_nvidia "$lib" && continue
    [ -f "$bundle/lib/$lib" ] && continue
    echo "gpu-bundle-closure: ${f#"$bundle"/} needs $lib: not in lib/, the base system or NVIDIA's libraries"
    gaps=$((gaps + 1))
  done < <(echo "$dyn" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  runpath=$(echo "$dyn" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\2/p')
  case "$runpath" in
    *'/'*) for p in ${runpath//:/ }; do
             case "$p" in '$ORIGIN'*) ;; *) echo "gpu-bundle-closure: ${f#"$bundle"/} has RUNPATH $runpath (an absolute folder)"; gaps=$((gaps + 1)) ;; esac
           done ;;
  esac
  case "${f#"$bundle"/}" in
    lib/*) ;;
    *) case ":$runpath:" in *':$ORIGIN/lib:'*) ;; *) echo "gpu-bundle-closure: ${f#"$bundle"/} lacks RUNPATH \$ORIGIN/lib (has '$runpath')"; gaps=$((gaps + 1)) ;; esac ;;
  esac
done
[ -f "$bundle/lib/libweft_cuda.so" ] || { echo "gpu-bundle-closure: lib/libweft_cuda.so missing"; gaps=$((gaps + 1)); }
if [ "$gaps" -ne 0 ]; then echo "gpu-bundle-closure: $gaps gap(s) in $checked ELF files"; exit 1; fi
echo "gpu-bundle-closure: closed ($checked ELF files; bundled: $(cd "$bundle/lib" && ls | tr '\n' ' '))"
