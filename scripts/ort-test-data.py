#!/usr/bin/python3
"""Writes ONNX test data sets for the test models from ONNX Runtime's outputs:
tests/data/test_data/<model>/test_data_set_0/{input_N.pb, output_N.pb}.

The test models carry no weights (their external weight files are absent; Weft seeds them), so
for each model in tests/data/models:
  1. seeded inputs are written as input_N.pb (uniform in [-1, 1), in steps of 1/16 so that the
     files pack small in git, seeded by the input's name and shape so that the ImageNet models
     share one input file's bytes; a few inputs take fixed values, e.g. silero's sample rate, or
     a generated image);
  2. `weft run MODEL --inputs SET --save-model TMP.onnx` runs the model on them (binding its
     symbolic dims from the inputs' shapes) and writes a temporary copy of the model with the
     weights the run used inline (the file's own, else Weft's seeded values, seed 42);
  3. ONNX Runtime (onnxruntime-node, CPU, graph optimisations off; scripts/ort-run.js) runs that
     copy on the same inputs, and its outputs are written as output_N.pb;
  4. `weft run MODEL --test-data SET` then reports how far Weft's outputs are from ORT's.
CI runs step 4 on the committed sets (tests/cli/test_cli_test_data.cpp) without ORT.

Set up ONNX Runtime once, outside the repository (its CPU binaries ship in the npm package):
  mkdir -p /work/peer && cd /work/peer && npm install --ignore-scripts onnxruntime-node
Run (Debian's python3-onnx and python3-numpy; node):
  /usr/bin/python3 scripts/ort-test-data.py --weft build/ci/app/weft/weft \\
      --ort /work/peer/node_modules/onnxruntime-node [--models resnet50,...] [--out tests/data/test_data]
The output is deterministic for one ONNX Runtime version (recorded in each set's folder as
ort.json, with the errors step 4 measured).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import zlib

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# Per model: the values of its symbolic input dims (by input name, the whole shape), fixed input
# values, and its own tolerance (data.json) where it computes in half precision.
MODELS = {
    "convnext_tiny": {},
    "googlenet": {},
    "grouped_mlp": {"shapes": {f"x{g}": [2, 256] for g in range(4)}},
    "inception_v3": {"shapes": {"x": [1, 3, 299, 299]}},
    "mnasnet1_0": {},
    "mobilenet_v3_large": {},
    "ppocr_v4_det": {"shapes": {"x": [1, 3, 64, 64]}},
    # The trained detector on a page of dark strokes in lines: its probability map spans 0..1. On
    # noise every pixel is background (~1e-7), where ORT's Sigmoid (MLAS's approximation) is off by
    # ~1e-7 absolute, several times the value, and no tolerance tells right from wrong.
    "ppocr_v4_det.weights": {"shapes": {"x": [1, 3, 96, 96]}, "generate": {"x": "text_page"}},
    "randwire_ws": {"shapes": {"x": [1, 64, 28, 28]}},
    "regnet_y_400mf": {},
    "resnet50": {},
    "shufflenet_v2_x1_0": {},
    # 16 kHz: 512-sample chunks; the sample rate picks the If branch.
    "silero_vad_v5": {"shapes": {"input": [1, 512], "state": [2, 1, 128]}, "values": {"sr": 16000}},
    "squeezenet1_1": {},
    "swin_dropout": {"shapes": {"x": [1, 49, 96]}},
    "transformer4h": {"shapes": {"x": [1, 64, 256]}},
    # Half precision: Weft and ORT both compute each operator in float32 and round its output to
    # float16 (ORT casts around the operators its CPU lacks in float16), but sum in other orders,
    # so outputs may land one float16 step (2^-10 relative) apart.
    "transformer4h_fp16": {"shapes": {"x": [1, 64, 256]}, "model": "test_data/transformer4h_fp16/model.onnx", "half": True},
    "vad_if": {"shapes": {"x": [1, 64]}, "values": {"sr": 16000}},
    "vit_b_16": {},
}

# The tolerances of the sets (see make_set): float32 models are held to relative 1e-4, the
# half-precision one to a few float16 steps.
FLOAT_RTOL = 1e-4
HALF_RTOL = 2e-3

ORT_TYPES = {TensorProto.FLOAT: "float32", TensorProto.FLOAT16: "float16", TensorProto.DOUBLE: "float64",
             TensorProto.INT64: "int64", TensorProto.INT32: "int32", TensorProto.BOOL: "bool", TensorProto.UINT8: "uint8",
             TensorProto.INT8: "int8"}
NP_TYPES = {"float32": np.float32, "float16": np.float16, "float64": np.float64, "int64": np.int64, "int32": np.int32,
            "bool": np.bool_, "uint8": np.uint8, "int8": np.int8}


def graph_inputs(model):
    inits = {i.name for i in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


def text_page(shape, rng):
    """A white page with lines of dark strokes (text-like), normalised as ImageNet models expect."""
    _, _, h, w = shape
    page = np.ones((h, w, 3), np.float32)
    for row in range(10, h - 10, 16):
        x = 6
        while x < w - 12:
            width = int(rng.integers(3, 9))
            page[row:row + 8, x:x + width, :] = 0.0
            x += width + int(rng.integers(2, 5))
    mean, std = np.array([0.485, 0.456, 0.406], np.float32), np.array([0.229, 0.224, 0.225], np.float32)
    return np.round((page - mean) / std * 16).transpose(2, 0, 1)[None] / 16


GENERATORS = {"text_page": text_page}


def make_inputs(name, model, conf):
    arrays = []
    for vi in graph_inputs(model):
        t = vi.type.tensor_type
        dtype = NP_TYPES[ORT_TYPES[t.elem_type]]
        shape = conf.get("shapes", {}).get(vi.name)
        if shape is None:
            shape = [d.dim_value for d in t.shape.dim]
            if any(d.dim_param or not d.dim_value for d in t.shape.dim):
                sys.exit(f"{name}: input {vi.name} has a symbolic dim: give its shape in MODELS")
        # Seeded by name and shape: the ImageNet models' inputs are one file's bytes, which git
        # stores once.
        rng = np.random.default_rng(zlib.crc32(f"{vi.name} {shape}".encode()))
        if vi.name in conf.get("values", {}):
            a = np.full(shape, conf["values"][vi.name], dtype=dtype)
        elif vi.name in conf.get("generate", {}):
            a = GENERATORS[conf["generate"][vi.name]](shape, rng).astype(dtype)
        elif np.issubdtype(dtype, np.floating):
            a = (rng.integers(-16, 16, size=shape) / 16).astype(dtype)
        else:
            a = np.zeros(shape, dtype=dtype)
        arrays.append((vi.name, a))
    return arrays


def round_down(x):
    """x to one significant digit, never above it: 6.58e-3 -> 6e-3."""
    e = math.floor(math.log10(x))
    return float(f"{math.floor(x / 10 ** e)}e{e}")


def run(argv, **kw):
    r = subprocess.run(argv, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(argv)}\n{r.stdout}{r.stderr}")
    return r


def make_set(name, conf, args):
    model_path = os.path.join(ROOT, "tests", "data", conf.get("model", os.path.join("models", name + ".onnx")))
    model = onnx.load(model_path, load_external_data=False)
    out_dir = os.path.join(args.out, name)
    set_dir = os.path.join(out_dir, "test_data_set_0")
    os.makedirs(set_dir, exist_ok=True)
    for f in os.listdir(set_dir):
        os.remove(os.path.join(set_dir, f))
    inputs = make_inputs(name, model, conf)
    for i, (input_name, a) in enumerate(inputs):
        with open(os.path.join(set_dir, f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, input_name).SerializeToString())
    with tempfile.TemporaryDirectory() as tmp:
        weighted = os.path.join(tmp, name + ".onnx")
        run([args.weft, "run", model_path, "--inputs", set_dir, "--save-model", weighted, "--iterations", "1", "--warmup", "0",
             "--rounds", "1"])
        spec = {"model": weighted, "out": os.path.join(tmp, "out"), "inputs": []}
        for i, (input_name, a) in enumerate(inputs):
            raw = os.path.join(tmp, f"input_{i}.bin")
            with open(raw, "wb") as f:
                f.write(np.ascontiguousarray(a).tobytes())
            spec["inputs"].append({"name": input_name, "type": ORT_TYPES[numpy_helper.from_array(a).data_type],
                                   "dims": list(a.shape), "file": raw})
        with open(os.path.join(tmp, "spec.json"), "w") as f:
            json.dump(spec, f)
        run(["node", os.path.join(ROOT, "scripts", "ort-run.js"), args.ort, os.path.join(tmp, "spec.json")])
        with open(os.path.join(spec["out"], "outputs.json")) as f:
            outputs = {o["name"]: o for o in json.load(f)}
        scale = float("inf")
        for i, vi in enumerate(model.graph.output):
            o = outputs[vi.name]
            a = np.frombuffer(open(o["file"], "rb").read(), dtype=NP_TYPES[o["type"]]).reshape(o["dims"])
            with open(os.path.join(set_dir, f"output_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, vi.name).SerializeToString())
            scale = min(scale, float(np.abs(a.astype(np.float64)).max())) if a.size else scale
    # The set's tolerance (data.json, as the ONNX backend tests' real-model folders carry it):
    # relative RTOL, with an absolute floor of RTOL of the smallest output's largest magnitude, so
    # that an element near zero is judged against the output's scale, not its own.
    rtol = HALF_RTOL if conf.get("half") else FLOAT_RTOL
    atol = round_down(rtol * scale) if scale > 0 else 0.0
    with open(os.path.join(out_dir, "data.json"), "w") as f:
        json.dump({"rtol": rtol, "atol": atol}, f)
        f.write("\n")
    # Weft against the set it just made: the figures the docs quote.
    r = subprocess.run([args.weft, "run", model_path, "--test-data", out_dir, "--iterations", "1", "--warmup", "0",
                        "--rounds", "1", "--json"], capture_output=True, text=True)
    try:
        report = json.loads(r.stdout)["test_data"]
    except (json.JSONDecodeError, KeyError):
        sys.exit(f"{name}: weft --test-data failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    worst = [{k: o[k] for k in ("name", "max_abs_error", "max_rel_error", "max_scaled_error", "passed")}
             for s in report["sets"] for o in s["outputs"] if o["run"] == "scheduled"]
    with open(os.path.join(out_dir, "ort.json"), "w") as f:
        json.dump({"onnxruntime": ort_version(args.ort), "graph_optimization": "disabled", "rtol": report["rtol"],
                   "atol": report["atol"], "weft": worst}, f, indent=1)
        f.write("\n")
    return r.returncode, worst


def ort_version(package):
    with open(os.path.join(package, "package.json")) as f:
        return json.load(f)["version"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--weft", required=True, help="the weft binary")
    p.add_argument("--ort", required=True, help="the onnxruntime-node package folder")
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated model names (default: all)")
    p.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "test_data"))
    args = p.parse_args()
    failed = 0
    for name in args.models.split(","):
        code, worst = make_set(name, MODELS[name], args)
        for o in worst:
            print(f"{name:22s} {o['name']:16s} max abs {o['max_abs_error']:.3g}  max rel {o['max_rel_error']:.3g}  "
                  f"vs scale {o['max_scaled_error']:.3g}  {'pass' if o['passed'] else 'FAIL'}")
        failed += code != 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
