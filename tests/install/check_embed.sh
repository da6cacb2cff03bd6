#!/usr/bin/env bash
# Installs this build into a scratch prefix, builds examples/embed against the installed package
# (find_package(Weft), Weft::core) and runs it on the installed sample model: the package config,
# headers, libweft.so and assets work from the prefix alone.
#   check_embed.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 source=$2
scratch=$build/install-check/embed
prefix=$scratch/prefix
rm -rf "$scratch"
mkdir -p "$scratch"
cmake --install "$build" --prefix "$prefix" --component weft > "$scratch.install.log" 2>&1 ||
  { cat "$scratch.install.log"; exit 1; }
for f in bin/weft include/weft/core/graph/graph.h include/weft/build_info.h share/weft/assets/models/googlenet.onnx; do
  [ -e "$prefix/$f" ] || { echo "check_embed: $f was not installed" >&2; exit 1; }
done
config=$(find "$prefix" -name WeftConfig.cmake)
[ -n "$config" ] || { echo "check_embed: no WeftConfig.cmake under $prefix" >&2; exit 1; }
# The example alone, the way a user builds it (no cache of the main build).
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$source/examples/embed" -B "$scratch/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" > "$scratch.configure.log" 2>&1 ||
  { cat "$scratch.configure.log"; exit 1; }
cmake --build "$scratch/build" > "$scratch.build.log" 2>&1 || { cat "$scratch.build.log"; exit 1; }
# The program must use the installed library, not the build tree's.
lib=$(ldd "$scratch/build/weft_embed" | awk '/libweft\.so/ {print $3}')
case "$lib" in
  "$prefix"/*) ;;
  *) echo "check_embed: weft_embed uses '$lib', not the installed libweft.so under $prefix" >&2; exit 1 ;;
esac
env -u WEFT_ASSETS_DIR "$scratch/build/weft_embed" "$prefix/share/weft/assets/models/googlenet.onnx" cp-list 1 |
  tee "$scratch.run.log"
grep -Eq '^speedup: [0-9.]+x$' "$scratch.run.log" || { echo "check_embed: no speedup printed" >&2; exit 1; }
grep -q '^outputs: bit-identical' "$scratch.run.log" || { echo "check_embed: outputs differ" >&2; exit 1; }
