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
(optional tools, not in scripts/debian-packages.txt), and a weft with `run --save-model`. Run it on
a quiet machine (a busy one pre-empts kernels and the replay error shows it):
  /usr/bin/python3 scripts/profile-peers.py --weft build/ci/app/weft/weft [--runs 5] [--out tests/data/profiles]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ORT_MODELS = ["googlenet", "squeezenet1_1", "mobilenet_v3_large"]
TORCH_ARCHS = ["googlenet", "squeezenet1_1"]
ORT_ARGS = ("op_name", "provider", "input_type_shape", "output_type_shape")
NUMPY_TO_ORT = {"float32": "float32", "int64": "int64", "int32": "int32"}


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"profile-peers: {' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout


def ort_inputs(model, saved, work):
    """The test data set's inputs as raw files for ONNX Runtime (scripts/peer-bench.py's layout)."""
    test_set = os.path.join(ROOT, "tests/data/test_data", model, "test_data_set_0")
    names = [i.name for i in onnx.load(saved, load_external_data=False).graph.input]
    inputs, n = [], 0
    while os.path.exists(os.path.join(test_set, f"input_{n}.pb")):
        t = onnx.TensorProto()
        with open(os.path.join(test_set, f"input_{n}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        a = numpy_helper.to_array(t)
        raw = os.path.join(work, f"{model}.input_{n}.bin")
        a.tofile(raw)
        inputs.append({"name": t.name or names[n], "type": NUMPY_TO_ORT[str(a.dtype)], "dims": list(a.shape), "file": raw})
        n += 1
    return test_set, inputs


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
    for model in args.ort_models.split(","):
        saved = os.path.join(work, model + ".onnx")
        test_set = os.path.join(ROOT, "tests/data/test_data", model, "test_data_set_0")
        run([args.weft, "run", os.path.join(ROOT, "tests/data/models", model + ".onnx"), "--backend", "cpu", "--strategy",
             "sequential", "--iterations", "1", "--warmup", "0", "--inputs", test_set, "--save-model", saved, "--json"])
        _, inputs = ort_inputs(model, saved, work)
        for level in ("basic", "all"):
            spec = os.path.join(work, "spec.json")
            prefix = os.path.join(work, f"{model}-{level}-")
            with open(spec, "w") as f:
                json.dump({"model": saved, "inputs": inputs, "level": level, "warmup": args.warmup,
                           "iterations": args.runs, "prefix": prefix}, f)
            written = json.loads(run(["node", os.path.join(ROOT, "scripts/ort-profile.js"), args.ort, spec]))["profile"]
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
    """The exported model with its weights' bytes left out (named external data that is not written)."""
    m = onnx.load(path)
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
        run(["/usr/bin/python3", script, arch, onnx_path, raw, str(args.warmup), str(args.runs)])
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
    ap.add_argument("--runs", type=int, default=5, help="profiled runs (steps) after the warm-up")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(ROOT, "tests/data/profiles"))
    ap.add_argument("--skip-ort", action="store_true")
    ap.add_argument("--skip-torch", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        if not a.skip_ort:
            profile_ort(a, work)
        if not a.skip_torch:
            profile_torch(a, work)


if __name__ == "__main__":
    main()
