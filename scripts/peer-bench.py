#!/usr/bin/python3
"""Weft against ONNX Runtime on the same models, weights and inputs, in one run (off in CI).

For each model: `weft run --save-model` writes the model with the weights Weft runs (its file's,
else its seeded values), and both runtimes run that model on one ONNX test data set's inputs
(tests/data/test_data/<model>/test_data_set_0). Then, in rounds that alternate the two runtimes
(ORT, Weft, ORT, Weft, ...) so that a slow phase of a shared machine slows both:
  * sequential, one thread: ORT with one intra-op thread, Weft's sequential schedule with one
    thread per stream;
  * best configuration on all the cores: ORT's intra-op threads = cores (sequential executor) and
    its inter-op executor (parallel, cores inter-op threads, one intra-op thread); Weft's streams
    alone (cp-list, one thread per stream), the same with hybrid teams (`--hybrid`: the nodes
    nothing runs beside on a team of every core), its intra-operator teams alone (one stream of
    `cores` threads, OpenMP's default waits and OMP_WAIT_POLICY=passive), and search on a CPU
    calibrated at every team size (streams, threads per stream and hybrid teams chosen together);
  * the same with `--fuse` (sequential, one stream of `cores` threads, cp-list hybrid, search): each
    Conv and the activations and residual Add after it as one node, as ORT's graph optimisations
    fuse them (--no-fuse leaves these out).
Each configuration's time is the median over the rounds of each round's median; a runtime's best
is its fastest configuration. Prints a table and the ratios (Weft / ORT, lower is better) and
writes every figure as JSON.

Needs Debian's python3-onnx and python3-numpy, node, onnxruntime-node (see scripts/ort-run.js:
  mkdir -p /work/peer && cd /work/peer && npm install --ignore-scripts onnxruntime-node)
and a weft with `run --inputs/--save-model` (issue 46). Run it on a quiet machine:
  /usr/bin/python3 scripts/peer-bench.py --weft build/release/app/weft/weft \\
      --ort /work/peer/node_modules/onnxruntime-node [--models googlenet,...] [--rounds 3]
      [--iterations 15] [--json peer.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
MODELS = ["googlenet", "inception_v3", "resnet50", "randwire_ws"]
NUMPY_TO_ORT = {"float32": "float32", "float64": "float64", "int64": "int64", "int32": "int32", "int8": "int8",
                "uint8": "uint8", "bool": "bool"}


def weft_json(weft, args, env=None):
    """`weft ARGS --json`'s object; exits naming the command on failure."""
    cmd = [weft] + args + ["--json"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"peer-bench: {' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return json.loads(r.stdout)


def prepare(model, weft, work):
    """The model with Weft's weights inline and the test set's inputs as raw files for ORT."""
    test_set = os.path.join(ROOT, "tests/data/test_data", model, "test_data_set_0")
    if not os.path.isdir(test_set):
        sys.exit(f"peer-bench: no test data set {test_set} (issue 46's tests/data/test_data)")
    saved = os.path.join(work, model + ".onnx")
    weft_json(weft, ["run", os.path.join(ROOT, "tests/data/models", model + ".onnx"), "--backend", "cpu", "--strategy",
                     "sequential", "--iterations", "1", "--warmup", "0", "--inputs", test_set, "--save-model", saved])
    graph_inputs = [i.name for i in onnx.load(saved, load_external_data=False).graph.input]
    inputs = []
    n = 0
    while os.path.exists(os.path.join(test_set, f"input_{n}.pb")):
        t = onnx.TensorProto()
        with open(os.path.join(test_set, f"input_{n}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        a = numpy_helper.to_array(t)
        raw = os.path.join(work, f"{model}.input_{n}.bin")
        a.tofile(raw)
        inputs.append({"name": t.name or graph_inputs[n], "type": NUMPY_TO_ORT[str(a.dtype)], "dims": list(a.shape), "file": raw})
        n += 1
    return saved, test_set, inputs


def ort_ms(ort, saved, inputs, work, intra, inter, parallel, iterations):
    spec = os.path.join(work, "spec.json")
    with open(spec, "w") as f:
        json.dump({"model": saved, "inputs": inputs, "intra_threads": intra, "inter_threads": inter, "parallel": parallel,
                   "warmup": 3, "iterations": iterations}, f)
    r = subprocess.run(["node", os.path.join(ROOT, "scripts/ort-bench.js"), ort, spec], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"peer-bench: ONNX Runtime failed on {saved}:\n{r.stderr}")
    return json.loads(r.stdout)["median_ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--weft", default=os.path.join(ROOT, "build/release/app/weft/weft"))
    ap.add_argument("--ort", default="/work/peer/node_modules/onnxruntime-node")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=15)
    ap.add_argument("--search-ms", type=int, default=3000, help="weft's search budget (calibrated teams)")
    ap.add_argument("--sequential-only", action="store_true",
                    help="one thread each only (the multi-threaded configurations need a quiet machine)")
    ap.add_argument("--no-fuse", action="store_true", help="leave out the fused configurations (weft run --fuse)")
    ap.add_argument("--json", help="write every figure here")
    a = ap.parse_args()
    cores = len(os.sched_getaffinity(0))
    ort_version = json.load(open(os.path.join(a.ort, "package.json")))["version"]
    passive = dict(os.environ, OMP_WAIT_POLICY="passive")
    out = {"machine": {"cpus": cores, "cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), ""),
                       "load_before": os.getloadavg()},
           "onnxruntime": ort_version, "rounds": a.rounds, "iterations": a.iterations, "models": {}}
    with tempfile.TemporaryDirectory() as work:
        for model in a.models.split(","):
            saved, test_set, inputs = prepare(model, a.weft, work)
            path = os.path.join(ROOT, "tests/data/models", model + ".onnx")
            device = os.path.join(work, model + ".cpu.json")
            # The CPU calibrated at every team size, for search (symbolic batches bound to the test set's 1).
            if not a.sequential_only:
                weft_json(a.weft, ["calibrate", path, "--iterations", "5", "-o", device] +
                          (["--dim", "batch=1"] if model in ("inception_v3", "randwire_ws") else []))
            base = ["run", path, "--backend", "cpu", "--inputs", test_set, "--iterations", str(a.iterations), "--rounds", "1"]
            weft_configs = {
                "sequential, 1 thread": (base + ["--strategy", "sequential"], None, "sequential_ms"),
                f"cp-list, {cores} streams x 1 thread": (base + ["--strategy", "cp-list", "--streams", str(cores)], None, "schedule_ms"),
                f"cp-list, {cores} streams x 1 thread, hybrid": (base + ["--strategy", "cp-list", "--streams", str(cores), "--hybrid"],
                                                               None, "schedule_ms"),
                f"1 stream x {cores} threads": (base + ["--strategy", "sequential", "--threads-per-stream", str(cores)], None, "schedule_ms"),
                f"1 stream x {cores} threads, passive waits": (base + ["--strategy", "sequential", "--threads-per-stream", str(cores)],
                                                                 passive, "schedule_ms"),
                "search over streams x threads": (base + ["--device", device, "--strategy", "search", "--budget-ms", str(a.search_ms)],
                                                  None, "schedule_ms"),
            }
            if not a.no_fuse:
                # Fused (`--fuse`): the run's sequential reference is the unfused model; its schedule
                # runs the fused one, so every fused figure is schedule_ms.
                weft_configs.update({
                    "sequential, 1 thread, fused": (base + ["--strategy", "sequential", "--fuse"], None, "schedule_ms"),
                    f"1 stream x {cores} threads, fused": (base + ["--strategy", "sequential", "--threads-per-stream", str(cores), "--fuse"],
                                                           None, "schedule_ms"),
                    f"cp-list, {cores} streams x 1 thread, hybrid, fused": (
                        base + ["--strategy", "cp-list", "--streams", str(cores), "--hybrid", "--fuse"], None, "schedule_ms"),
                    "search over streams x threads, fused": (
                        base + ["--device", device, "--strategy", "search", "--budget-ms", str(a.search_ms), "--fuse"], None, "schedule_ms"),
                })
            ort_configs = {
                "1 intra-op thread": (1, 1, False),
                f"{cores} intra-op threads": (cores, 1, False),
                f"parallel executor, {cores} inter-op threads": (1, cores, True),
            }
            times = {("ort", k): [] for k in ort_configs}
            times.update({("weft", k): [] for k in weft_configs})
            chosen = {}
            if a.sequential_only:
                ort_configs = {k: v for k, v in ort_configs.items() if k == "1 intra-op thread"}
                weft_configs = {k: v for k, v in weft_configs.items() if k.startswith("sequential, 1 thread")}
                times = {k: v for k, v in times.items() if k[1] in ort_configs or k[1] in weft_configs}
            ort_list, weft_list = list(ort_configs.items()), list(weft_configs.items())
            for _ in range(a.rounds):
                # Alternate: an ORT configuration, a Weft one, the next ORT one, ..., round after round.
                for i in range(max(len(ort_list), len(weft_list))):
                    if i < len(ort_list):
                        ok, (intra, inter, par) = ort_list[i]
                        times[("ort", ok)].append(ort_ms(a.ort, saved, inputs, work, intra, inter, par, a.iterations))
                    if i < len(weft_list):
                        wk, (args, env, key) = weft_list[i]
                        j = weft_json(a.weft, args, env)
                        times[("weft", wk)].append(j[key])
                        teams = j["kernels"].get("node_teams", {})
                        hybrid = f", {teams['nodes']} alone on {teams['threads']}" if teams.get("nodes") else ""
                        chosen[wk] = f"{j['streams']} stream(s) x {j['kernels']['threads_per_stream']} thread(s){hybrid} ({j['strategy']})"
                        out.setdefault("weft_kernels", j["kernels"]["library"])
            med = {k: statistics.median(v) for k, v in times.items()}
            ort_best = min((k for k in med if k[0] == "ort"), key=lambda k: med[k])
            weft_best = min((k for k in med if k[0] == "weft"), key=lambda k: med[k])
            seq_ratio = med[("weft", "sequential, 1 thread")] / med[("ort", "1 intra-op thread")]
            best_ratio = med[weft_best] / med[ort_best]
            out["models"][model] = {"ort_ms": {k[1]: v for k, v in med.items() if k[0] == "ort"},
                                    "weft_ms": {k[1]: v for k, v in med.items() if k[0] == "weft"},
                                    "weft_ran": chosen, "rounds_ms": {f"{k[0]}: {k[1]}": v for k, v in times.items()},
                                    "sequential_ratio": seq_ratio, "ort_best": ort_best[1], "weft_best": weft_best[1],
                                    "best_ratio": best_ratio}
            print(f"\n{model}")
            for (who, k), v in sorted(med.items()):
                extra = f"   [{chosen[k]}]" if who == "weft" else ""
                print(f"  {who:4s}  {k:45s} {v:9.2f} ms{extra}")
            print(f"  sequential 1 thread: weft / ort = {seq_ratio:.2f}x")
            if ("weft", "sequential, 1 thread, fused") in med:
                print(f"  sequential 1 thread, fused: weft / ort = {med[('weft', 'sequential, 1 thread, fused')] / med[('ort', '1 intra-op thread')]:.2f}x")
            print(f"  best: weft ({weft_best[1]}) / ort ({ort_best[1]}) = {best_ratio:.2f}x")
            sys.stdout.flush()
    out["machine"]["load_after"] = os.getloadavg()
    out["date"] = time.strftime("%Y-%m-%d %H:%M")
    print("\n| model | ORT 1 thread | Weft sequential 1 thread | Weft / ORT | ORT best | Weft best | Weft / ORT |")
    print("|---|---:|---:|---:|---|---|---:|")
    for m, r in out["models"].items():
        print(f"| {m} | {r['ort_ms']['1 intra-op thread']:.1f} ms | {r['weft_ms']['sequential, 1 thread']:.1f} ms | "
              f"{r['sequential_ratio']:.2f}x | {r['ort_ms'][r['ort_best']]:.1f} ms ({r['ort_best']}) | "
              f"{r['weft_ms'][r['weft_best']]:.1f} ms ({r['weft_ran'][r['weft_best']]}) | {r['best_ratio']:.2f}x |")
    print(f"\n{cores} CPUs ({out['machine']['cpu']}), ONNX Runtime {ort_version}, Weft on {out.get('weft_kernels')}, "
          f"load {out['machine']['load_before'][0]:.2f} before, {out['machine']['load_after'][0]:.2f} after")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
