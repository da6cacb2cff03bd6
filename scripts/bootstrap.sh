#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds Weft and runs it or its tests.
#   scripts/bootstrap.sh demo   build, then open weft-studio on the sample model
#                               (no display: print `weft analyze` of it instead)
#   scripts/bootstrap.sh test   build with the CI preset (warnings are errors), run every test
set -euo pipefail
mode=${1:-demo}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

packages=(build-essential cmake ninja-build ccache pkg-config git
  qt6-base-dev qt6-charts-dev qt6-svg-dev libgl-dev libxkbcommon-dev
  libonnx-dev libprotobuf-dev protobuf-compiler nlohmann-json3-dev libopenblas-dev
  libgtest-dev libgmock-dev libbenchmark-dev python3-onnx python3-numpy)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  sudo_cmd=(); [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
# Paths relative to the checkout, so clones in other folders share cache entries.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
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
    cmake --build --preset ci
    # ONNX's own backend cases, generated once into the build folder (the conformance test reads them).
    if [ ! -d build/ci/onnx-conformance/node ]; then
      bash "$root/../shared/scripts/onnx-conformance.sh" build/ci/onnx-conformance >/dev/null 2>&1 ||
        bash scripts/onnx-conformance.sh build/ci/onnx-conformance >/dev/null 2>&1 || true
    fi
    exec ctest --preset ci -j2
    ;;
  *)
    echo "usage: scripts/bootstrap.sh demo|test" >&2
    exit 1
    ;;
esac
