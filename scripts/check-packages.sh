#!/usr/bin/env bash
# Fails when a configured build uses a file that no package in scripts/debian-packages.txt provides,
# directly or through its dependencies. CI runs on a machine where packages are already installed,
# so a package missing from the list would otherwise only break a fresh machine.
#   scripts/check-packages.sh [BUILD_DIR] [PACKAGE_LIST]   (defaults: build/ci, scripts/debian-packages.txt)
# The dependency closure is read from dpkg's own database (installed packages, Depends and
# Pre-Depends, alternatives and virtual packages resolved to what is installed), so it needs no apt
# lists and no network.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/ci}
list=${2:-$root/scripts/debian-packages.txt}
[ -f "$build/CMakeCache.txt" ] || { echo "check-packages: $build/CMakeCache.txt not found (configure first)" >&2; exit 2; }
exec /usr/bin/python3 - "$build/CMakeCache.txt" "$list" <<'PY'
import os, re, subprocess, sys

cache, listfile = sys.argv[1], sys.argv[2]
listed = [l.split('#')[0].strip() for l in open(listfile)]
listed = [l for l in listed if l]

# Installed packages: name -> dependency groups; virtual name -> providers.
out = subprocess.run(['dpkg-query', '-W', '-f=${Package}\t${Status}\t${Depends}\t${Pre-Depends}\t${Provides}\n'],
                     capture_output=True, text=True, check=True).stdout
deps, provides = {}, {}
for line in out.splitlines():
    name, status, dep, pre, prov = (line.split('\t') + [''] * 5)[:5]
    if not status.endswith('installed') or 'not-installed' in status or 'config-files' in status:
        continue
    deps[name] = [g for g in (dep + ',' + pre).split(',') if g.strip()]
    for p in prov.split(','):
        p = re.sub(r'\(.*?\)', '', p).strip()
        if p:
            provides.setdefault(p, set()).add(name)

def bare(n):
    return re.sub(r'\(.*?\)|\[.*?\]|<.*?>', '', n).strip().split(':')[0]

closure, todo = set(), [p for p in listed]
missing_listed = [p for p in listed if p not in deps]
while todo:
    p = todo.pop()
    if p in closure:
        continue
    closure.add(p)
    for group in deps.get(p, []):
        for alt in group.split('|'):
            n = bare(alt)
            for real in ({n} if n in deps else set()) | provides.get(n, set()):
                if real not in closure:
                    todo.append(real)

def owner(path):
    for f in (path, os.path.realpath(path)):
        r = subprocess.run(['dpkg', '-S', f], capture_output=True, text=True)
        if r.returncode == 0 and r.stdout:
            return r.stdout.splitlines()[0].split(':')[0].split(',')[0].strip()
    return None

problems, checked = [], 0
for line in open(cache):
    m = re.match(r'^([A-Za-z0-9_]+):(PATH|FILEPATH)=(/.*)$', line.rstrip('\n'))
    if not m:
        continue
    name, kind, value = m.groups()
    if name.startswith('CMAKE_') or value.startswith('/usr/local/') or not value.startswith(('/usr/', '/bin/', '/lib/')):
        continue
    if kind == 'PATH':
        if not name.endswith('_DIR') or not os.path.isdir(value) or value == '/usr/include':
            continue
        cmakes = sorted(f for f in os.listdir(value) if f.endswith('.cmake'))
        if not cmakes:
            continue
        f = os.path.join(value, cmakes[0])
    else:
        if not os.path.exists(value):
            continue
        f = value
    checked += 1
    pkg = owner(f)
    if pkg is None:
        problems.append(f'no package owns {f} (for {name})')
    elif pkg not in closure:
        problems.append(f'{pkg} (for {name} = {value})')

if missing_listed:
    problems += [f'{p} is listed but not installed' for p in missing_listed]
if problems:
    print(f'check-packages: configure used packages that {os.path.basename(listfile)} does not install:', file=sys.stderr)
    for p in problems:
        print('  ' + p, file=sys.stderr)
    sys.exit(1)
print(f'check-packages: {checked} files found by configure, all provided by {os.path.basename(listfile)} '
      f'({len(listed)} packages, {len(closure)} with dependencies)')
PY
