#!/usr/bin/env bash
# Makes the Debian package with CPack, unpacks it into a scratch root (dpkg -x: nothing is
# installed on this machine) and checks what it holds: dependencies, desktop entry, icon, MIME
# types, the package config, and that the unpacked programs run from there: `weft --version`,
# `weft analyze` on the bundled model (assets found relative to the binary), the Python module.
#   check_deb.sh BUILD_DIR
set -euo pipefail
build=$1
scratch=$build/install-check/deb
rm -rf "$scratch"
mkdir -p "$scratch"
(cd "$build" && cpack -G DEB -B "$scratch/out" > "$scratch/cpack.log" 2>&1) || { cat "$scratch/cpack.log"; exit 1; }
version=$(sed -n 's/^#define WEFT_VERSION_STRING "\(.*\)"/\1/p' "$build/generated/include/weft/build_info.h")
deb="$scratch/out/weft_${version}_amd64.deb"
[ -f "$deb" ] || { echo "check_deb: $deb not made; made: $(ls "$scratch/out")" >&2; exit 1; }
fail() { echo "check_deb: $*" >&2; exit 1; }

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for lib in libonnx libprotobuf libopenblas libc6 libstdc++6; do
  grep -q "$lib" <<< "$depends" || fail "Depends lacks $lib"
done

# No `| head` under pipefail: an early-closing reader gives dpkg-deb SIGPIPE and the script exits.
description=$(dpkg-deb -f "$deb" Description)
summary=${description%%$'\n'*}
[ "$summary" = "parallel schedules of neural-network graphs" ] || fail "package summary: '$summary'"

root=$scratch/root
dpkg -x "$deb" "$root"
for cuda_deb in "$scratch"/out/weft-cuda_*.deb; do
  [ -f "$cuda_deb" ] && dpkg -x "$cuda_deb" "$root"
done
need() { [ -e "$root/$1" ] || fail "$1 is not in the package"; }
need usr/bin/weft
need usr/share/weft/assets/models/googlenet.onnx
need usr/share/weft/assets/devices/h100-sxm.json
need usr/include/weft/core/graph/graph.h
need usr/share/doc/weft/README.md
[ -n "$(find "$root/usr/lib" -name WeftConfig.cmake)" ] || fail "no WeftConfig.cmake"
[ -n "$(find "$root/usr/lib" -name 'libweft.so*')" ] || fail "no libweft.so"
if grep -q 'kStudio = true' "$build/generated/include/weft/build_info.h"; then
  need usr/bin/weft-studio
  need usr/share/applications/weft-studio.desktop
  need usr/share/icons/hicolor/scalable/apps/weft-studio.svg
  need usr/share/mime/packages/weft.xml
  grep -qi 'libqt6widgets6' <<< "$depends" || fail "Depends lacks Qt 6 Widgets"
  desktop=$root/usr/share/applications/weft-studio.desktop
  grep -q '^Exec=weft-studio %f$' "$desktop" || fail "desktop entry: Exec"
  grep -q '^Icon=weft-studio$' "$desktop" || fail "desktop entry: Icon"
  for t in application/x-onnx application/x-weft-project; do
    grep -q "MimeType=.*$t;" "$desktop" || fail "desktop entry does not open $t"
    grep -q "type=\"$t\"" "$root/usr/share/mime/packages/weft.xml" || fail "weft.xml does not define $t"
  done
  grep -q 'pattern="\*.onnx"' "$root/usr/share/mime/packages/weft.xml" || fail "weft.xml: no *.onnx glob"
  grep -q 'pattern="\*.weft"' "$root/usr/share/mime/packages/weft.xml" || fail "weft.xml: no *.weft glob"
fi

# The unpacked programs, with nothing pointing back at the build or source tree.
for f in "$root"/usr/bin/* $(find "$root/usr/lib" -name '*.so*' -type f); do
  dynamic=$(readelf -d "$f")
  if grep -q "R.*PATH.*$build" <<< "$dynamic"; then fail "$f has a RUNPATH into the build tree"; fi
done
unset WEFT_ASSETS_DIR WEFT_CUDA_MODULE
weft=$root/usr/bin/weft
"$weft" --version | tee "$scratch/version.txt"
grep -q "^weft $version " "$scratch/version.txt" || fail "weft --version does not print $version"
grep -q "assets: *$root/usr/share/weft/assets" "$scratch/version.txt" || fail "weft does not read the package's assets"
"$weft" analyze "$root/usr/share/weft/assets/models/googlenet.onnx" | tee "$scratch/analyze.txt"
grep -q "width" "$scratch/analyze.txt" || fail "weft analyze printed no width"
if grep -q 'kCudaModule = true' "$build/generated/include/weft/build_info.h"; then
  need usr/lib/weft/libweft_cuda.so
  # Where the module loads (NVIDIA's libraries present; no GPU needed), it is the package's.
  "$weft" devices --json > "$scratch/devices.json" 2> /dev/null || true
  module=$(/usr/bin/python3 -c 'import json,sys; c=json.load(open(sys.argv[1])).get("cuda"); print(c["module"] if c else "")' "$scratch/devices.json")
  [ -z "$module" ] || [[ "$module" == "$root"/* ]] || fail "weft devices loaded $module, not the package's module"
  echo "CUDA module: ${module:-not loadable here (see weft devices)}"
fi
if grep -q 'kPythonModule = true' "$build/generated/include/weft/build_info.h"; then
  site=$root/usr/lib/python3/dist-packages
  [ -n "$(find "$site" -name 'weft*.so')" ] || fail "no Python module in $site"
  PYTHONPATH=$site /usr/bin/python3 - "$root" <<'PY'
import sys, weft
root = sys.argv[1]
assert weft.__file__.startswith(root), weft.__file__
m = weft.load(root + "/usr/share/weft/assets/models/googlenet.onnx")
a = m.analyze()
print(f"python: weft {weft.__version__} from {weft.__file__}: width {a.width}, {m.node_count} operators")
assert a.width >= 2
PY
fi
echo "check_deb: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB) ok"
