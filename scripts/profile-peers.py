#!/usr/bin/python3
"""Measured profiles of test models from the runtimes people deploy, for tests/data/profiles (off in CI).

ONNX Runtime (onnxruntime-node from the npm registry, CPU execution provider, sequential executor,
one intra-op thread): for each model, `weft run --save-model` writes it with the weights Weft runs
(structure-only models get seeded weights) and ONNX Runtime profiles it (enable_profiling) on its
test data set's inputs at graph optimisation levels "basic" and "all":
    <model>.ort-basic.json, <model>.ort-all.json
PyTorch (Debian's python3-torch and python3-torchvision; CPU, one thread): two torchvision
architectures with seeded weights, each exported to ONNX beside its trace (structure-only: the
weights' bytes left out, as in tests/data/models) and profiled with torch.profiler, every module's
forward annotated with its path (record_function), as profiling code that wants operators tied to
modules does:
    <arch>.torch.onnx, <arch>.torch-cpu.json

Kept small for the repository, and said here: the warm-up runs' events are dropped; in ONNX
Runtime's profile only the arguments the mapping reads stay (op_name, provider, input and output
shapes; the memory statistics go); in PyTorch's trace the events nested inside an aten operator
(its own dispatch: aten::convolution inside aten::conv2d) go. Nothing else is edited.

Needs node, onnxruntime-node (mkdir -p /work/peer && cd /work/peer && npm install --ignore-scripts
onnxruntime-node), Debian's python3-onnx, python3-numpy, python3-torch and python3-torchvision
(optional tools, not in scripts/debian-packages.txt), and a weft with `run --save-model`. The
profiled processes run under `chrt -f 10` (SCHED_FIFO, a few seconds each) where allowed, so that
the machine's other work does not pre-empt them between kernels (a 4 ms stall in a 20 ms iteration
is the scheduler, not the runtime); --no-realtime runs them as ordinary processes. Run it on a
quiet machine all the same:
  /usr/bin/python3 scripts/profile-peers.py --weft build/ci/app/weft/weft [--runs 5] [--out tests/data/profiles]
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import onnx

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ORT_MODELS = ["googlenet", "squeezenet1_1", "mobilenet_v3_large"]
TORCH_ARCHS = ["googlenet", "squeezenet1_1"]
ORT_ARGS = ("op_name", "provider", "input_type_shape", "output_type_shape")


REALTIME = []  # ["chrt", "-f", "10"] where the scheduler allows it (main)


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"profile-peers: {' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout


def peer_bench():
    """scripts/peer-bench.py as a module: its `prepare` saves a model with Weft's weights and writes
    the test data set's inputs for ONNX Runtime."""
    spec = importlib.util.spec_from_file_location("peer_bench", os.path.join(ROOT, "scripts", "peer-bench.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def trim_ort(events, warmup):
    """The profile without the warm-up runs' events and with only the arguments the mapping reads."""
    runs = sorted((e["ts"], e["dur"]) for e in events if e.get("cat") == "Session" and e["name"] == "model_run")
    start = runs[warmup][0] if len(runs) > warmup else 0
    out = []
    for e in events:
        if e.get("cat") == "Node":
            if e["ts"] < start:
                continue
            e = dict(e, args={k: v for k, v in e.get("args", {}).items() if k in ORT_ARGS})
        elif e["name"] in ("model_run", "SequentialExecutor::Execute") and e["ts"] < start:
            continue
        out.append(e)
    return out


def profile_ort(args, work):
    prepare = peer_bench().prepare
    for model in args.ort_models.split(","):
        saved, _, inputs = prepare(model, args.weft, work)
        for level in ("basic", "all"):
            spec = os.path.join(work, "spec.json")
            prefix = os.path.join(work, f"{model}-{level}-")
            with open(spec, "w") as f:
                json.dump({"model": saved, "inputs": inputs, "level": level, "warmup": args.warmup,
                           "iterations": args.runs, "prefix": prefix}, f)
            written = json.loads(run(REALTIME + ["node", os.path.join(ROOT, "scripts/ort-profile.js"), args.ort, spec]))["profile"]
            with open(written[0]) as f:
                events = trim_ort(json.load(f), args.warmup)
            out = os.path.join(args.out, f"{model}.ort-{level}.json")
            with open(out, "w") as f:
                json.dump(events, f, separators=(",", ":"))
                f.write("\n")
            print(f"wrote {out} ({os.path.getsize(out) // 1024} KiB)")


TORCH_SCRIPT = r'''
import json, sys, torch, torchvision
from torch.profiler import profile, record_function, ProfilerActivity
arch, onnx_path, trace_path, warmup, steps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
torch.manual_seed(0)
torch.set_num_threads(1)
kw = {"aux_logits": False, "init_weights": True} if arch == "googlenet" else {}
model = getattr(torchvision.models, arch)(weights=None, **kw).eval()
x = torch.randn(1, 3, 224, 224)
torch.onnx.export(model, x, onnx_path, opset_version=13, input_names=["x"], output_names=["y"])
# Each module's forward inside a record_function named by its path, so that the trace ties
# operators to modules (the exporter names ONNX nodes by the same paths).
open_scopes = {}
def enter(module, inputs):
    scope = record_function(module._weft_path)
    scope.__enter__()
    open_scopes.setdefault(id(module), []).append(scope)
def leave(module, inputs, output):
    open_scopes[id(module)].pop().__exit__(None, None, None)
for name, module in model.named_modules():
    if name:
        module._weft_path = name
        module.register_forward_pre_hook(enter)
        module.register_forward_hook(leave)
with torch.no_grad():
    for _ in range(warmup):
        model(x)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for step in range(steps):
            with record_function(f"ProfilerStep#{step}"):
                model(x)
prof.export_chrome_trace(trace_path)
'''


def trim_torch(trace):
    """The trace without the events nested inside an aten operator on the same thread."""
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    timed = sorted((e for e in events if e.get("ph") == "X"), key=lambda e: (str(e.get("pid")), str(e.get("tid")), e["ts"], -e["dur"]))
    keep, stack, thread = [], [], None
    for e in timed:
        key = (str(e.get("pid")), str(e.get("tid")))
        if key != thread:
            stack, thread = [], key
        while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
            stack.pop()
        if not any("::" in s["name"] for s in stack):
            keep.append(e)
        stack.append(e)
    keep.sort(key=lambda e: e["ts"])
    rest = [e for e in events if e.get("ph") != "X"]
    return dict(trace, traceEvents=rest + keep) if isinstance(trace, dict) else rest + keep


def structure_only(path):
    """The exported model with its weights' bytes left out (named external data that is not written),
    and the exporter's Identity nodes over weights (copies of shared parameters) replaced by
    initializers of their output's name, as a runtime folds them."""
    m = onnx.load(path)
    inits = {t.name: t for t in m.graph.initializer}
    keep = []
    for node in m.graph.node:
        if node.op_type == "Identity" and node.input[0] in inits:
            copy = onnx.TensorProto()
            copy.CopyFrom(inits[node.input[0]])
            copy.name = node.output[0]
            m.graph.initializer.append(copy)
        else:
            keep.append(node)
    del m.graph.node[:]
    m.graph.node.extend(keep)
    name = os.path.basename(path).replace(".onnx", ".weights.bin")
    onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True, location=name, size_threshold=0)
    os.remove(os.path.join(os.path.dirname(path), name))


def profile_torch(args, work):
    script = os.path.join(work, "torch_profile.py")
    with open(script, "w") as f:
        f.write(TORCH_SCRIPT)
    for arch in args.torch_archs.split(","):
        onnx_path = os.path.join(args.out, f"{arch}.torch.onnx")
        raw = os.path.join(work, f"{arch}.trace.json")
        run(REALTIME + ["/usr/bin/python3", script, arch, onnx_path, raw, str(args.warmup), str(args.steps)])
        structure_only(onnx_path)
        with open(raw) as f:
            trace = trim_torch(json.load(f))
        out = os.path.join(args.out, f"{arch}.torch-cpu.json")
        with open(out, "w") as f:
            json.dump(trace, f, separators=(",", ":"))
            f.write("\n")
        print(f"wrote {out} ({os.path.getsize(out) // 1024} KiB) and {onnx_path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--weft", default=os.path.join(ROOT, "build/ci/app/weft/weft"))
    ap.add_argument("--ort", default="/work/peer/node_modules/onnxruntime-node")
    ap.add_argument("--ort-models", default=",".join(ORT_MODELS))
    ap.add_argument("--torch-archs", default=",".join(TORCH_ARCHS))
    ap.add_argument("--runs", type=int, default=5, help="profiled ONNX Runtime runs after the warm-up")
    ap.add_argument("--steps", type=int, default=3, help="profiled PyTorch steps after the warm-up (larger traces)")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(ROOT, "tests/data/profiles"))
    ap.add_argument("--skip-ort", action="store_true")
    ap.add_argument("--skip-torch", action="store_true")
    ap.add_argument("--no-realtime", action="store_true", help="profile as ordinary processes (no chrt)")
    a = ap.parse_args()
    if not a.no_realtime and subprocess.run(["chrt", "-f", "10", "true"], capture_output=True).returncode == 0:
        REALTIME.extend(["chrt", "-f", "10"])
    os.makedirs(a.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        if not a.skip_ort:
            profile_ort(a, work)
        if not a.skip_torch:
            profile_torch(a, work)


if __name__ == "__main__":
    main()
