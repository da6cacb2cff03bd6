#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds Weft and runs it or its tests.
#   scripts/bootstrap.sh demo   build, then open weft-studio on the sample model
#                               (no display: print `weft analyze` of it instead)
#   scripts/bootstrap.sh test   build with the CI preset (warnings are errors), run every test, then
#                               the core and CLI tests under the asan and tsan presets
#                               (WEFT_SANITIZERS=0: skip those)
set -euo pipefail
mode=${1:-demo}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

mapfile -t packages < <(sed 's/#.*//' scripts/debian-packages.txt | awk 'NF {print $1}')
missing=()
for p in "${packages[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  sudo_cmd=(); [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
# Paths relative to the checkout, so clones in other folders share cache entries; the build
# folder left out of the hash (it only names the compilation folder in the debug info), so the
# asan and tsan builds take the test objects the ci build compiled (tests/CMakeLists.txt).
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
case "$mode" in
  demo)
    # Same build folder as `test`, so running both builds once.
    cmake --preset ci >/dev/null
    cmake --build --preset ci
    model=assets/models/googlenet.onnx
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x build/ci/app/studio/weft-studio ]; then
      exec build/ci/app/studio/weft-studio "$model"
    fi
    echo "bootstrap: no display; printing the analysis instead (weft analyze $model)"
    exec build/ci/app/weft/weft analyze "$model"
    ;;
  test)
    cmake --preset ci >/dev/null
    # Every package configure found must be on the list above, or a fresh machine fails here.
    scripts/check-packages.sh build/ci
    cmake --build --preset ci
    # ONNX's own backend cases, generated once into the build folder (the conformance test reads
    # them); a failure here fails the run rather than leaving the conformance test without cases.
    if [ ! -d build/ci/onnx-conformance/node ]; then
      rm -rf build/ci/onnx-conformance.tmp
      scripts/onnx-conformance.sh build/ci/onnx-conformance.tmp >build/ci/onnx-conformance.log 2>&1 ||
        { cat build/ci/onnx-conformance.log >&2; echo "bootstrap: generating the ONNX conformance cases failed" >&2; exit 1; }
      mv build/ci/onnx-conformance.tmp build/ci/onnx-conformance
    fi
    ctest --preset ci -j2
    # The core, CLI and CPU-executor tests again under AddressSanitizer + UndefinedBehaviorSanitizer
    # and ThreadSanitizer (tests labelled slow excluded). WEFT_SANITIZERS=0 skips them locally.
    if [ "${WEFT_SANITIZERS:-1}" != 0 ]; then
      for preset in asan tsan; do
        cmake --preset "$preset" >/dev/null
        cmake --build --preset "$preset"
        ctest --preset "$preset" -j2
      done
    fi
    ;;
  *)
    echo "usage: scripts/bootstrap.sh demo|test" >&2
    exit 1
    ;;
esac
