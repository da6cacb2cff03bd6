#!/usr/bin/python3
"""Writes the malformed-input corpus, tests/data/bad/, and its manifest.

Every case is a file Weft must refuse (or, for the few controls, accept) with a distinct exit
code and a message naming the problem, never a crash. The manifest lists, per case, every
command that takes the file (argv relative to tests/data/bad/), the exit code expected and a
fragment the output must contain; tests/cli/test_bad_inputs.cpp replays it through `weft`, and
the studio's tests replay the models and project files through its loaders.

Run with Debian's python3-onnx:  /usr/bin/python3 scripts/make-bad-corpus.py
The output is deterministic; commit it (the files are small).
"""
import hashlib
import io
import json
import os
import random
import shutil
import sys
import zipfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "bad")
cases = []


def write(rel, data):
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def model_bytes(nodes, inputs, outputs, inits=(), opset=13, name="bad"):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="weft-bad-corpus")
    m.ir_version = 8
    return m.SerializeToString()


def vi(name, dims, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, dims)


def out(name):
    v = onnx.ValueInfoProto()
    v.name = name
    return v


# The control model: x feeds two branches that meet, then a weight multiplies them in.
#   A: Relu(x), B: Sigmoid(x), C: Add(a, b), D: Mul(c, w) -> y
def tiny_nodes(second="Sigmoid"):
    return [helper.make_node("Relu", ["x"], ["a"], name="A"),
            helper.make_node(second, ["x"], ["b"], name="B"),
            helper.make_node("Add", ["a", "b"], ["c"], name="C"),
            helper.make_node("Mul", ["c", "w"], ["y"], name="D")]


def weight(name="w", dims=(1, 4)):
    return helper.make_tensor(name, TensorProto.FLOAT, list(dims), [0.5] * (dims[0] * dims[1]))


TINY = model_bytes(tiny_nodes(), [vi("x", [1, 4])], [vi("y", [1, 4])], [weight()], name="tiny")
OTHER = model_bytes(tiny_nodes("Tanh"), [vi("x", [1, 4])], [vi("y", [1, 4])], [weight()], name="other")


def schedule_json(model_bytes_, stream_lists, event_pairs, **extra):
    doc = {"format": "weft-schedule", "version": 1,
           "model": {"path": "tiny.onnx", "sha256": hashlib.sha256(model_bytes_).hexdigest()},
           "device": "h100-sxm", "strategy": "hand", "options": "",
           "streams": stream_lists, "events": [{"from": a, "to": b} for a, b in event_pairs]}
    doc.update(extra)
    return json.dumps(doc, indent=2) + "\n"


GOOD_STREAMS = [["A", "C", "D"], ["B"]]
GOOD_EVENTS = [("B", "C")]

# Commands per kind of file. {f} is the case's file; paths are relative to tests/data/bad.
MODEL_COMMANDS = {
    "analyze": ["analyze", "{f}"],
    "schedule": ["schedule", "{f}", "--strategy", "cp-list"],
    "plan": ["plan", "{f}", "--strategy", "cp-list"],
    "simulate": ["simulate", "{f}", "--strategy", "cp-list"],
    "run": ["run", "{f}", "--backend", "cpu", "--strategy", "cp-list", "--iterations", "1", "--warmup", "0"],
    "validate": ["validate", "{f}", "tiny.schedule.json"],
}
SCHEDULE_COMMANDS = {
    "validate": ["validate", "tiny.onnx", "{f}"],
    "plan": ["plan", "tiny.onnx", "--schedule", "{f}"],
    "simulate": ["simulate", "tiny.onnx", "--schedule", "{f}"],
    "run": ["run", "tiny.onnx", "--backend", "cpu", "--schedule", "{f}", "--iterations", "1", "--warmup", "0"],
}
INTERVAL_COMMANDS = {"plan": ["plan", "--intervals", "{f}"]}
PROFILE_COMMANDS = {
    "profile": ["profile", "tiny.onnx", "{f}"],
    "analyze": ["analyze", "tiny.onnx", "--profile", "{f}"],
    "simulate": ["simulate", "tiny.onnx", "--strategy", "cp-list", "--profile", "{f}"],
}


def case(kind, name, rel, code, message, overrides=None, studio=True):
    """One case: every command of its kind expects (code, message) unless overridden."""
    commands = {"model": MODEL_COMMANDS, "schedule": SCHEDULE_COMMANDS, "intervals": INTERVAL_COMMANDS,
                "project": {}, "inputs": {}, "profile": PROFILE_COMMANDS}[kind]
    overrides = dict(overrides or {})
    if kind == "model" and rel != "tiny.onnx" and "validate" not in overrides and (code == 0 or "analyze" in overrides):
        # A model weft accepts is not the one tiny.schedule.json was made for.
        overrides["validate"] = (2, "made for another model")
    runs = []
    for cmd, argv in commands.items():
        c, m = overrides.get(cmd, (code, message))
        runs.append({"command": cmd, "args": [a.replace("{f}", rel) for a in argv], "code": c, "message": m})
    prefix = {"model": "model", "schedule": "schedule", "intervals": "csv", "project": "project", "inputs": "inputs",
              "profile": "profile"}[kind]
    entry = {"name": name if name.startswith("control_") else f"{prefix}_{name}", "kind": kind, "file": rel, "code": code, "message": message, "runs": runs}
    if kind in ("model", "project"):
        entry["studio"] = studio  # the studio's loader refuses it too (or, for controls, opens it)
    cases.append(entry)


def model_case(name, data, message, code=2, overrides=None, folder="models", studio=True):
    rel = f"{folder}/{name}.onnx"
    write(rel, data)
    case("model", name, rel, code, message, overrides, studio)


def npy_bytes(array):
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def pb_bytes(array, name):
    return numpy_helper.from_array(array, name).SerializeToString()


def npz_bytes(compressed=False, *positional, **named):
    buffer = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buffer, *positional, **named)
    return buffer.getvalue()


def run_case(name, args, code, message, file):
    """A case of `weft run` on tiny.onnx (or the model args name) with what it is given."""
    runs = [{"command": "run", "args": ["run"] + args + ["--backend", "cpu", "--iterations", "1", "--warmup", "0"],
             "code": code, "message": message}]
    full = name if name.startswith("control_") else f"inputs_{name}"
    cases.append({"name": full, "kind": "inputs", "file": file, "code": code, "message": message, "runs": runs})


def ort_profile_events(names, ops, runs=2, dur=None):
    """An ONNX Runtime profile of `runs` runs of the named nodes, in its layout (scripts/ort-profile.js)."""
    events = [{"cat": "Session", "pid": 1, "tid": 1, "dur": 100, "ts": 0, "ph": "X", "name": "session_initialization", "args": {}}]
    ts = 200
    for _ in range(runs):
        events.append({"cat": "Session", "pid": 1, "tid": 1, "dur": 10 * len(names) + 5, "ts": ts, "ph": "X", "name": "model_run", "args": {}})
        for i, (name, op) in enumerate(zip(names, ops)):
            events.append({"cat": "Node", "pid": 1, "tid": 1, "dur": 8 if dur is None else dur, "ts": ts + 2 + 10 * i, "ph": "X",
                           "name": name + "_kernel_time", "args": {"op_name": op, "provider": "CPUExecutionProvider"}})
        ts += 1000
    return events


def profiles():
    """Measured profiles for tiny.onnx (weft profile, --profile): a control, then what is refused."""
    good = json.dumps(ort_profile_events(["A", "B", "C", "D"], ["Relu", "Sigmoid", "Add", "Mul"]))

    def profile(name, text, message, code=2):
        rel = f"profiles/{name}.json"
        write(rel, text)
        case("profile", name, rel, code, message)

    profile("control_profile", good, "", 0)
    profile("truncated", good[: len(good) // 2], "truncated JSON at byte")
    profile("malformed", good.replace('"ph": "X"', '"ph" "X"', 1), "malformed JSON at byte")
    profile("empty_file", "", "not a profile")
    profile("not_json_container", "42\n", "not a profile")
    profile("no_node_events", json.dumps([e for e in json.loads(good) if e["cat"] == "Session"]), "no node events")
    profile("other_model", json.dumps(ort_profile_events(["P", "Q", "R", "S"], ["Conv", "Relu", "Conv", "Relu"])),
            "a profile of another model?")
    profile("negative_duration", json.dumps(ort_profile_events(["A", "B", "C", "D"], ["Relu", "Sigmoid", "Add", "Mul"], dur=-3)),
            "node event 'A_kernel_time' without ts and dur")
    profile("trace_without_events", json.dumps({"displayTimeUnit": "ns", "otherData": {}}), "a Chrome trace without \"traceEvents\"")


def given_inputs():
    """weft run --inputs and --test-data on tiny.onnx (x: float32 1x4 -> y), and on two models with
    a symbolic batch: one input (models/unbound_symbolic_dim.onnx) and two that share it."""
    x = (np.arange(4, dtype=np.float32).reshape(1, 4) - 1.5) / 2
    # tiny: y = (Relu(x) + Sigmoid(x)) * 0.5, as numpy computes it in float32.
    y = ((np.maximum(x, 0) + 1 / (1 + np.exp(-x))) * np.float32(0.5)).astype(np.float32)
    # A weight without data under a weight-only node (Transpose), which import folds into a seeded
    # weight of its own: --save-model must write what the run used (tests/core/study/test_test_data.cpp).
    w = onnx.TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4, 1])
    w.data_location = TensorProto.EXTERNAL
    entry = w.external_data.add()
    entry.key, entry.value = "location", "absent.bin"
    write("inputs/folded_weight.onnx", model_bytes([helper.make_node("Transpose", ["w"], ["wt"], name="t", perm=[1, 0]),
                                                    helper.make_node("Add", ["x", "wt"], ["y"], name="add")],
                                                   [vi("x", [1, 4])], [vi("y", [1, 4])], [w]))
    write("inputs/two_inputs.onnx", model_bytes([helper.make_node("Add", ["a", "b"], ["c"], name="add")],
                                                [vi("a", ["batch", 4]), vi("b", ["batch", 4])], [vi("c", ["batch", 4])]))

    def given(name, files, code, message, model="tiny.onnx"):
        rel = f"inputs/{name}"
        for f, data in files.items():
            write(f"{rel}/{f}", data)
        run_case(name, [model, "--inputs", rel], code, message, rel)

    # numpy's own files of every kind the reader takes (tests/core/exec/test_tensor_files.cpp): values
    # arange(N) in the given dtype and shape.
    def fmt(rel, array, version=None):
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, array, version=version)
        write(f"inputs/formats/{rel}", buffer.getvalue())

    fmt("float32_2x3.npy", np.arange(6, dtype=np.float32).reshape(2, 3))
    fmt("fortran_2x3x4.npy", np.asfortranarray(np.arange(24, dtype=np.float64).reshape(2, 3, 4)))
    fmt("float16_5.npy", np.arange(5, dtype=np.float16))
    fmt("int64_2x2.npy", np.arange(4, dtype=np.int64).reshape(2, 2))
    fmt("uint8_3.npy", np.arange(3, dtype=np.uint8))
    fmt("bool_4.npy", np.array([True, False, False, True]))
    fmt("scalar_int32.npy", np.array(7, dtype=np.int32))
    fmt("empty_0x3.npy", np.zeros((0, 3), dtype=np.float32))
    fmt("v2_float32_3.npy", np.arange(3, dtype=np.float32), version=(2, 0))
    write("inputs/formats/two.npz", npz_bytes(False, b=np.arange(3, dtype=np.int32), a=np.arange(2, dtype=np.float32)))
    write("inputs/formats/two_compressed.npz", npz_bytes(True, np.arange(1000, dtype=np.float32), np.arange(3, dtype=np.int64)))

    # --- controls: each format, by name and by position ---------------------------------------
    given("control_inputs_pb", {"input_0.pb": pb_bytes(x, "x")}, 0, "bit-identical")
    given("control_inputs_npy", {"x.npy": npy_bytes(x)}, 0, "bit-identical")
    write("inputs/control_named.npz", npz_bytes(False, x=x))
    run_case("control_inputs_npz", ["tiny.onnx", "--inputs", "inputs/control_named.npz"], 0, "bit-identical", "inputs/control_named.npz")
    write("inputs/control_positional.npz", npz_bytes(True, x))
    run_case("control_inputs_npz_compressed_positional", ["tiny.onnx", "--inputs", "inputs/control_positional.npz"], 0,
             "bit-identical", "inputs/control_positional.npz")
    given("control_inputs_unnamed_pb", {"input_0.pb": pb_bytes(x, "")}, 0, "bit-identical")
    given("control_inputs_extra", {"x.npy": npy_bytes(x), "extra.npy": npy_bytes(x)}, 0,
          "warning: ignored 'extra' (inputs/control_inputs_extra/extra.npy): every input of the model has its value")
    given("control_inputs_bind_batch", {"x.npy": npy_bytes(np.zeros((3, 4), np.float32))}, 0,
          "bound from the given inputs' shapes: batch=3", model="models/unbound_symbolic_dim.onnx")

    # --- refused: what is missing, wrong or unreadable, named ----------------------------------
    given("missing", {"a.npy": npy_bytes(x)}, 2, "no value for input 'b' (float32 1x4) in inputs/missing",
          model="inputs/two_inputs.onnx")
    given("unknown_name", {"xx.npy": npy_bytes(x)}, 2,
          "no value for input 'x' (float32 1x4) in inputs/unknown_name; given 'xx' (inputs/unknown_name/xx.npy), "
          "which names no input of the model (its inputs: x)")
    given("wrong_dtype", {"x.npy": npy_bytes(x.astype(np.float64))}, 2,
          "input 'x' (inputs/wrong_dtype/x.npy): given float64 1x4, the model expects float32 1x4 (wrong dtype)")
    given("wrong_shape", {"x.npy": npy_bytes(np.zeros((2, 4), np.float32))}, 2,
          "input 'x' (inputs/wrong_shape/x.npy): given float32 2x4, the model expects float32 1x4 (wrong shape)")
    given("wrong_rank_pb", {"input_0.pb": pb_bytes(x.reshape(4), "x")}, 2,
          "input 'x' (inputs/wrong_rank_pb/input_0.pb): given float32 4, the model expects float32 1x4 (wrong shape)")
    given("given_twice", {"input_0.pb": pb_bytes(x, "x"), "input_1.pb": pb_bytes(x, "x")}, 2,
          "input 'x' is given twice: inputs/given_twice/input_0.pb and inputs/given_twice/input_1.pb")
    given("conflicting_dims", {"a.npy": npy_bytes(np.zeros((1, 4), np.float32)), "b.npy": npy_bytes(np.zeros((2, 4), np.float32))}, 2,
          "dimension 'batch' is 1 in input 'a' (inputs/conflicting_dims/a.npy) but 2 in input 'b' (inputs/conflicting_dims/b.npy)",
          model="inputs/two_inputs.onnx")
    good_npy = npy_bytes(x)
    given("truncated_npy", {"x.npy": good_npy[:-8]}, 2,
          "inputs/truncated_npy/x.npy: truncated: the header says float32 1x4 (16 bytes), the file holds 8")
    given("npy_too_long", {"x.npy": good_npy + b"\0" * 4}, 2, "holds more than its header says")
    given("not_npy", {"x.npy": b"x,y\n1,2\n"}, 2, "inputs/not_npy/x.npy: not a numpy .npy file")
    given("npy_bad_header", {"x.npy": good_npy.replace(b"'shape': (1, 4)", b"'shape': [1, 4]")}, 2,
          "inputs/npy_bad_header/x.npy: bad .npy header: 'shape' is not a tuple")
    given("npy_big_endian", {"x.npy": npy_bytes(x.astype(">f4"))}, 2,
          "numpy dtype '>f4' has no Weft type")
    given("npy_complex", {"x.npy": npy_bytes(x.astype(np.complex64))}, 2, "numpy dtype '<c8' has no Weft type")
    good_pb = pb_bytes(x, "x")
    given("truncated_pb", {"input_0.pb": good_pb[:-5]}, 2,
          "inputs/truncated_pb/input_0.pb: not a valid TensorProto (truncated or corrupt)")
    given("pb_size_mismatch", {"input_0.pb": onnx.TensorProto(name="x", data_type=TensorProto.FLOAT, dims=[1, 4],
                                                              raw_data=b"\0" * 8).SerializeToString()}, 2,
          "inputs/pb_size_mismatch/input_0.pb: tensor 'x'")
    npz = npz_bytes(False, x=x)
    bad_crc = bytearray(npz)
    bad_crc[npz.index(b"NUMPY") + 120] ^= 0xFF  # a data byte of x.npy
    write("inputs/crc.npz", bytes(bad_crc))
    run_case("npz_crc", ["tiny.onnx", "--inputs", "inputs/crc.npz"], 2, "inputs/crc.npz: entry 'x.npy': corrupt (CRC-32 mismatch)",
             "inputs/crc.npz")
    write("inputs/truncated.npz", npz[: len(npz) // 2])
    run_case("npz_truncated", ["tiny.onnx", "--inputs", "inputs/truncated.npz"], 2,
             "inputs/truncated.npz: not an .npz file (no zip end-of-directory record)", "inputs/truncated.npz")
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w", compression=zipfile.ZIP_BZIP2) as z:
        z.writestr(zipfile.ZipInfo("x.npy", date_time=(1980, 1, 1, 0, 0, 0)), npy_bytes(x), compress_type=zipfile.ZIP_BZIP2)
    write("inputs/bzip2.npz", zipped.getvalue())
    run_case("npz_bzip2", ["tiny.onnx", "--inputs", "inputs/bzip2.npz"], 2,
             "inputs/bzip2.npz: entry 'x.npy': uses compression method 12", "inputs/bzip2.npz")
    run_case("missing_path", ["tiny.onnx", "--inputs", "inputs/nowhere"], 2, "inputs/nowhere: no such file or folder", "inputs/nowhere")
    given("empty_folder", {"README.txt": "no tensors here\n"}, 2, "inputs/empty_folder: holds no input_N.pb and no .npy files")
    write("inputs/tensor.txt", "1 2 3 4\n")
    run_case("not_a_tensor_file", ["tiny.onnx", "--inputs", "inputs/tensor.txt"], 2, "not a folder, .npz, .npy or .pb file",
             "inputs/tensor.txt")

    # --- test data: sets of inputs and expected outputs ---------------------------------------
    def test_set(name, files, code, message, data_json=None, args=()):
        for f, data in files.items():
            write(f"inputs/{name}/test_data_set_0/{f}", data)
        if data_json is not None:
            write(f"inputs/{name}/data.json", data_json)
        run_case(name, ["tiny.onnx", "--test-data", f"inputs/{name}"] + list(args), code, message, f"inputs/{name}")

    test_set("control_test_data", {"input_0.pb": good_pb, "output_0.pb": pb_bytes(y, "y")}, 0, "test data: passed")
    test_set("test_data_mismatch", {"input_0.pb": good_pb, "output_0.pb": pb_bytes(y + np.float32(0.01), "y")}, 5,
             "the outputs differ from the test data (exit 5)")
    test_set("test_data_wrong_output_shape", {"input_0.pb": good_pb, "output_0.pb": pb_bytes(np.zeros((1, 5), np.float32), "y")}, 5,
             "FAIL (the run gave float32 1x4, expected float32 1x5)")
    test_set("test_data_no_outputs", {"input_0.pb": good_pb}, 2,
             "test_data_set_0: a test data set holds output_N.pb files, the expected outputs")
    test_set("test_data_bad_input", {"input_0.pb": pb_bytes(x.astype(np.float64), "x"), "output_0.pb": pb_bytes(y, "y")}, 2,
             "test_data_set_0: input 'x' (inputs/test_data_bad_input/test_data_set_0/input_0.pb): given float64 1x4, "
             "the model expects float32 1x4 (wrong dtype)")
    test_set("test_data_bad_tolerance", {"input_0.pb": good_pb, "output_0.pb": pb_bytes(y, "y")}, 2,
             "inputs/test_data_bad_tolerance/data.json: 'rtol' must be a non-negative number", data_json='{"rtol": "tight"}')
    run_case("test_data_missing", ["tiny.onnx", "--test-data", "inputs/no_test_data"], 2,
             "inputs/no_test_data: no such folder", "inputs/no_test_data")


def main():
    if os.path.isdir(ROOT):
        shutil.rmtree(ROOT)
    os.makedirs(ROOT)
    write("tiny.onnx", TINY)
    write("other.onnx", OTHER)
    write("tiny.schedule.json", schedule_json(TINY, GOOD_STREAMS, GOOD_EVENTS))

    # --- controls: the harness must see these succeed, or it proves nothing -------------------
    case("model", "control_tiny", "tiny.onnx", 0, "")
    case("schedule", "control_schedule", "tiny.schedule.json", 0, "")

    # --- bytes that are not a model -----------------------------------------------------------
    model_case("empty", b"", "empty")
    model_case("truncated_half", TINY[: len(TINY) // 2], "truncated or corrupt")
    model_case("truncated_last_byte", TINY[:-1], "truncated or corrupt")
    model_case("bitflip_tag", bytes([TINY[0] | 0x07]) + TINY[1:], "truncated or corrupt")  # wire type 7
    g = onnx.load_from_string(TINY).graph.SerializeToString()
    head = onnx.load_from_string(TINY)
    head.ClearField("graph")
    # The graph's length prefix claims 1 MB more than the file holds.
    length = len(g) + (1 << 20)
    varint = b""
    while True:
        b = length & 0x7F
        length >>= 7
        varint += bytes([b | (0x80 if length else 0)])
        if not length:
            break
    model_case("bitflip_length", head.SerializeToString() + b"\x3a" + varint + g, "truncated or corrupt")
    rng = random.Random(13)
    model_case("garbage", bytes(rng.randrange(256) for _ in range(512)), "not a valid ONNX protobuf")
    model_case("text", b"this is a text file, not a model\n", "not a valid ONNX protobuf")
    m = onnx.ModelProto()
    m.ir_version = 8
    model_case("no_graph", m.SerializeToString(), "no graph")
    model_case("empty_graph", model_bytes([], [], []), "empty")

    # --- sizes ----------------------------------------------------------------------------------
    big = 1 << 40
    model_case("huge_input_dims", model_bytes([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                                              [vi("x", [big, big])], [vi("y", [big, big])]),
               "'x' of shape 1099511627776x1099511627776: its size overflows")
    model_case("huge_dim_through_inference", model_bytes([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                                                         [vi("x", [1 << 50])], [out("y")]), "overflows")
    # 1 TiB: a legal size (under 2^48) that analysis handles and a run refuses before allocating.
    tib = [1 << 16, 1 << 16, 64]
    model_case("terabyte_input", model_bytes([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", tib)],
                                             [vi("y", tib)]), "",
               overrides={"analyze": (0, ""), "schedule": (0, ""), "plan": (0, ""), "simulate": (0, ""),
                          "run": (3, "of memory, more than this machine's")})
    t = helper.make_tensor("w", TensorProto.FLOAT, [1, 4], [0.5] * 4)
    t.dims[0] = -3
    model_case("negative_dim_initializer", model_bytes(tiny_nodes(), [vi("x", [1, 4])], [vi("y", [1, 4])], [t]),
               "initializer 'w' has a negative dimension")
    t = onnx.TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1 << 62, 4], raw_data=b"\0" * 12)
    model_case("overflow_initializer", model_bytes(tiny_nodes(), [vi("x", [1, 4])], [vi("y", [1, 4])], [t]),
               "initializer 'w': its size overflows")
    t = onnx.TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1, 4], raw_data=b"\0" * 8)
    model_case("raw_size_mismatch", model_bytes(tiny_nodes(), [vi("x", [1, 4])], [vi("y", [1, 4])], [t]),
               "raw_data holds 8 bytes, its shape needs 16")
    t = onnx.TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1000000, 1000000], raw_data=b"\0" * 10)
    model_case("claims_terabytes_inline", model_bytes(tiny_nodes(), [vi("x", [1, 4])], [vi("y", [1, 4])], [t]),
               "initializer 'w'")

    # A declared dimension below 0 (ONNX dimensions are >= 0; symbolic ones are dim_params): refused
    # by name and axis rather than read as an unknown dimension.
    x = vi("x", [1, 4])
    x.type.tensor_type.shape.dim[1].dim_value = -5
    model_case("negative_declared_dim", model_bytes(tiny_nodes(), [x], [vi("y", [1, 4])], [weight()]),
               "tensor 'x' axis 1 is declared with dimension -5: ONNX dimensions are >= 0")
    # Dropout in training mode with a ratio above 0: its outputs are random by definition. The
    # analyses accept it (the graph is whole) and say so; a run refuses it, naming the node and ratio.
    drop = [helper.make_node("Dropout", ["x", "ratio", "training"], ["d"], name="drop0"),
            helper.make_node("Relu", ["d"], ["y"], name="relu0")]
    model_case("dropout_training", model_bytes(drop, [vi("x", [1, 4])], [vi("y", [1, 4])],
                                               [helper.make_tensor("ratio", TensorProto.FLOAT, [], [0.1]),
                                                helper.make_tensor("training", TensorProto.BOOL, [], [True])]),
               "node 'drop0' (Dropout): training_mode=true with ratio 0.1: its outputs are random", code=0,
               overrides={"run": (2, "node 'drop0' (Dropout): training_mode=true with ratio 0.1: its outputs are random")})

    # A stride of 0: libonnx's Conv inference would divide by it (SIGFPE; found by the fuzzer).
    conv = helper.make_node("Conv", ["x", "k"], ["y"], name="conv0", strides=[0, 1], kernel_shape=[3, 3])
    model_case("zero_stride", model_bytes([conv], [vi("x", [1, 1, 8, 8])], [out("y")],
                                          [helper.make_tensor("k", TensorProto.FLOAT, [1, 1, 3, 3], [0.1] * 9)]),
               "node 'conv0' (Conv): attribute 'strides' must be positive, got [0, 1]")
    conv = helper.make_node("MaxPool", ["x"], ["y"], name="pool0", kernel_shape=[2, 2], dilations=[1, 0])
    model_case("zero_dilation", model_bytes([conv], [vi("x", [1, 1, 8, 8])], [out("y")], opset=13),
               "node 'pool0' (MaxPool): attribute 'dilations' must be positive, got [1, 0]")

    # --- structure ------------------------------------------------------------------------------
    def relu(i, o, n):
        return helper.make_node("Relu", [i], [o], name=n)

    model_case("cycle", model_bytes([relu("x", "a", "A"), helper.make_node("Add", ["a", "c"], ["b"], name="B"),
                                     relu("b", "c", "C")], [vi("x", [1, 4])], [out("c")]), "cycle")
    model_case("self_loop", model_bytes([helper.make_node("Add", ["x", "s"], ["s"], name="loop")],
                                        [vi("x", [1, 4])], [out("s")]), "cycle")
    model_case("dangling_input", model_bytes([helper.make_node("Add", ["x", "ghost"], ["y"], name="adder")],
                                             [vi("x", [1, 4])], [out("y")]),
               "node 'adder' (Add) reads tensor 'ghost', which no node, input or initializer defines")
    model_case("undefined_output", model_bytes([relu("x", "y", "A")], [vi("x", [1, 4])], [out("nowhere")]),
               "graph output 'nowhere' is not defined")
    model_case("duplicate_node_names", model_bytes([relu("x", "a", "same"), relu("a", "y", "same")],
                                                   [vi("x", [1, 4])], [out("y")]), "duplicate node name 'same'")
    model_case("duplicate_producers", model_bytes([relu("x", "y", "first"),
                                                   helper.make_node("Sigmoid", ["x"], ["y"], name="second")],
                                                  [vi("x", [1, 4])], [out("y")]), "produced by two nodes")
    model_case("duplicate_graph_input", model_bytes([relu("x", "y", "A")], [vi("x", [1, 4]), vi("x", [1, 4])],
                                                    [out("y")]), "graph input 'x' is listed twice")
    model_case("duplicate_initializer", model_bytes(tiny_nodes(), [vi("x", [1, 4])], [vi("y", [1, 4])],
                                                    [weight(), weight()]), "initializer 'w' is defined twice")
    model_case("writes_initializer", model_bytes([relu("x", "w", "clobber")], [vi("x", [1, 4])], [out("w")],
                                                 [weight()]), "node 'clobber' writes tensor 'w'")
    t = weight("")
    model_case("unnamed_initializer", model_bytes(tiny_nodes(), [vi("x", [1, 4])], [vi("y", [1, 4])], [weight(), t]),
               "an initializer has no name")
    model_case("constant_without_value",
               model_bytes([helper.make_node("Constant", [], ["k"], name="empty_constant"),
                            helper.make_node("Add", ["x", "k"], ["y"], name="add")], [vi("x", [1])], [out("y")]),
               "Constant node 'empty_constant' must have exactly one value attribute")

    # --- operators, domains, opsets ---------------------------------------------------------------
    # Unknown operators are kept as opaque nodes (analysis proceeds: their outputs have no shape);
    # what needs shapes or a kernel refuses them by name.
    def analysed_not_run(analyze_message, run_message, others=""):
        return {"analyze": (0, analyze_message), "schedule": (0, others), "plan": (0, others),
                "simulate": (0, others), "run": (2, run_message)}

    model_case("unknown_op", model_bytes([relu("x", "a", "A"), helper.make_node("NotARealOp", ["a"], ["y"], name="mystery")],
                                         [vi("x", [1, 4])], [out("y")]), "",
               overrides=analysed_not_run("unknown cost: mystery (NotARealOp)",
                                          "node 'mystery': operator 'NotARealOp' has no CPU kernel"))
    n = helper.make_node("FancyOp", ["a"], ["y"], name="fancy", domain="com.example")
    g = helper.make_graph([relu("x", "a", "A"), n], "bad", [vi("x", [1, 4])], [out("y")])
    mm = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)])
    mm.ir_version = 8
    model_case("unknown_domain", mm.SerializeToString(), "",
               overrides=analysed_not_run("unknown cost: fancy (FancyOp)", "node 'fancy': operator 'com.example::FancyOp' has no CPU kernel"))
    model_case("too_new_opset", model_bytes(tiny_nodes(), [vi("x", [1, 4])], [vi("y", [1, 4])], [weight()], opset=999),
               "opset 999 of domain 'ai.onnx' is too new")
    model_case("opset_zero", model_bytes(tiny_nodes(), [vi("x", [1, 4])], [vi("y", [1, 4])], [weight()], opset=0),
               "opset 0 of domain 'ai.onnx' is not a version")

    # --- nested graphs ----------------------------------------------------------------------------
    def if_node(name, then_g, else_g, cond="c", outputs=("y",)):
        return helper.make_node("If", [cond], list(outputs), name=name, then_branch=then_g, else_branch=else_g)

    def branch(name, reads, output):
        return helper.make_graph([helper.make_node("Neg", [reads], [output], name=name + "_neg")], name, [], [out(output)])

    model_case("nested_reads_undefined",
               model_bytes([if_node("branch", branch("then", "ghost", "t"), branch("else", "x", "e"))],
                           [vi("x", [2]), vi("c", [], TensorProto.BOOL)], [out("y")]), "'ghost'")
    # Deeper than protobuf's recursion limit (100 messages): refused by the parser, no stack overflow.
    inner = branch("leaf", "x", "t0")
    for d in range(60):
        inner = helper.make_graph([if_node(f"if{d}", inner, branch(f"e{d}", "x", f"e{d}"), outputs=(f"t{d + 1}",))],
                                  f"level{d}", [], [out(f"t{d + 1}")])
    model_case("nested_too_deep",
               model_bytes([if_node("outer", inner, branch("else", "x", "e"))],
                           [vi("x", [2]), vi("c", [], TensorProto.BOOL)], [out("y")]),
               "truncated or corrupt")

    # --- symbolic shapes: analysis proceeds, what needs sizes says which dim to bind ------------------
    unbound = analysed_not_run("unresolved dimension x: dim 0 'batch'",
                               "input 'x' has no static shape: dim 0 'batch' (--dim batch=VALUE)",
                               "unresolved dimension x: dim 0 'batch'")
    # A memory plan of tensors of unknown size would hold nothing: plan refuses.
    unbound["plan"] = (2, "the memory plan needs every tensor's size; unresolved: x: dim 0 'batch' (bind the dimension)")
    model_case("unbound_symbolic_dim",
               model_bytes([relu("x", "y", "A")], [vi("x", ["batch", 4])], [vi("y", ["batch", 4])]),
               "", overrides=unbound)

    # --- external data: confined to the model's folder, ranges checked --------------------------------
    def ext_tensor(location, dims=(1, 4), offset=None, length=None):
        t = onnx.TensorProto(name="w", data_type=TensorProto.FLOAT, dims=list(dims))
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", location), ("offset", offset), ("length", length)):
            if v is not None:
                e = t.external_data.add()
                e.key, e.value = k, str(v)
        return t

    def ext_model(name, tensor, message, code=2, overrides=None):
        model_case(name, model_bytes(tiny_nodes(), [vi("x", [1, 4])], [vi("y", [1, 4])], [tensor]), message, code,
                   overrides, folder="external")

    write("external/w16.bin", bytes(range(16)))
    write("external/w10.bin", b"0123456789")
    os.symlink("../tiny.onnx", os.path.join(ROOT, "external", "link.bin"))
    os.symlink("..", os.path.join(ROOT, "external", "up"))
    os.symlink("../../../../etc/hostname", os.path.join(ROOT, "external", "dangling_out.bin"))
    case("model", "control_external", "external/ext_good.onnx", 0, "")
    write("external/ext_good.onnx", model_bytes(tiny_nodes(), [vi("x", [1, 4])], [vi("y", [1, 4])], [ext_tensor("w16.bin")]))
    ext_model("ext_parent", ext_tensor("../../../../etc/passwd"),
              "tensor 'w': external data location '../../../../etc/passwd' leaves the model's folder")
    ext_model("ext_absolute", ext_tensor("/etc/passwd"), "location '/etc/passwd' is an absolute path")
    ext_model("ext_symlink_file", ext_tensor("link.bin"), "location 'link.bin' leaves the model's folder through a symbolic link")
    ext_model("ext_symlink_dir", ext_tensor("up/tiny.onnx"), "leaves the model's folder through a symbolic link")
    ext_model("ext_symlink_dangling", ext_tensor("dangling_out.bin"), "is a symbolic link leaving the model's folder")
    ext_model("ext_short_file", ext_tensor("w10.bin", dims=(1000000, 1000000)), "lies past the end of 'w10.bin' (10 bytes)")
    ext_model("ext_offset_past_end", ext_tensor("w16.bin", offset=100), "range [100, 100 + 16) lies past the end")
    ext_model("ext_length_mismatch", ext_tensor("w16.bin", length=3), "length 3 differs from the 16 bytes its shape needs")
    ext_model("ext_offset_not_number", ext_tensor("w16.bin", offset="12abc"), "offset '12abc' is not a byte count")
    ext_model("ext_offset_negative", ext_tensor("w16.bin", offset=-4), "offset '-4' is not a byte count")
    ext_model("ext_directory", ext_tensor("."), "location '.' is not a regular file")
    # Absent data is not an error for analysis (structure-only models); a run seeds the weight.
    ext_model("ext_absent_file", ext_tensor("absent.bin"), "", code=0,
              overrides={"run": (0, "weights: 1 without data in the model's files, seeded random values used")})

    # --- schedules for tiny.onnx -----------------------------------------------------------------------
    def sched_case(name, text, message):
        rel = f"schedules/{name}.json"
        write(rel, text)
        case("schedule", name, rel, 2, message)

    sched_case("unknown_node", schedule_json(TINY, [["A", "C", "D"], ["B", "Z"]], GOOD_EVENTS), "unknown node 'Z'")
    sched_case("missing_node", schedule_json(TINY, [["A", "C"], ["B"]], GOOD_EVENTS), "1 node(s) of the model are on no stream (first: 'D')")
    sched_case("duplicate_node", schedule_json(TINY, [["A", "C", "D"], ["B", "A"]], GOOD_EVENTS), "duplicate node 'A'")
    sched_case("deadlock", schedule_json(TINY, [["C", "A", "D"], ["B"]], GOOD_EVENTS), "deadlock")
    sched_case("missing_event", schedule_json(TINY, GOOD_STREAMS, []), "is not enforced")
    sched_case("event_unknown_node", schedule_json(TINY, GOOD_STREAMS, [("B", "nope")]), "unknown node 'nope'")
    sched_case("other_model", schedule_json(OTHER, GOOD_STREAMS, GOOD_EVENTS), "made for another model")
    sched_case("malformed_json", schedule_json(TINY, GOOD_STREAMS, GOOD_EVENTS)[:60], "malformed JSON")
    sched_case("not_object", "[1, 2, 3]\n", "the top level must be an object")
    sched_case("wrong_format", schedule_json(TINY, GOOD_STREAMS, GOOD_EVENTS, format="weft-project"), "'format' must be")
    sched_case("wrong_version", schedule_json(TINY, GOOD_STREAMS, GOOD_EVENTS, version=99), "unsupported 'version'")
    sched_case("key_not_string", schedule_json(TINY, [["A", "C", "D"], [7]], GOOD_EVENTS), "node keys must be strings")
    sched_case("streams_not_list", schedule_json(TINY, GOOD_STREAMS, GOOD_EVENTS, streams="A,B,C,D"), "streams")
    sched_case("empty_file", "", "malformed JSON")

    # --- MiniMalloc interval CSVs (weft plan --intervals) ---------------------------------------------------
    def csv_case(name, text, message):
        rel = f"intervals/{name}.csv"
        write(rel, text)
        case("intervals", name, rel, 2, message)

    csv_case("empty", "", "empty file (no header)")
    csv_case("bad_header", "name,from,to,bytes\n0,0,4,16\n", "expected the header 'id,lower,upper,size'")
    csv_case("three_columns", "id,lower,upper,size\n0,0,4\n", "expected 4 columns, found 3")
    csv_case("not_integer", "id,lower,upper,size\n0,0,four,16\n", "'four' is not an integer")
    csv_case("empty_lifetime", "id,lower,upper,size\n0,5,5,16\n", "lifetime [5, 5) is empty or negative")
    csv_case("negative_lower", "id,lower,upper,size\n0,-3,5,16\n", "is empty or negative")
    csv_case("zero_size", "id,lower,upper,size\n0,0,4,0\n", "size must be positive")
    csv_case("repeated_id", "id,lower,upper,size\n0,0,4,16\n0,1,5,16\n", "id '0' is empty or repeated")
    csv_case("number_overflow", "id,lower,upper,size\n0,0,4,99999999999999999999\n", "is not an integer")
    csv_case("sizes_overflow_sum",
             "id,lower,upper,size\n" + "".join(f"{k},0,4,{(1 << 62) - 1}\n" for k in range(4)), "too large")
    csv_case("time_too_large", f"id,lower,upper,size\n0,0,{(1 << 63) - 1},16\n", "too large")

    # --- studio project files (.weft) ----------------------------------------------------------------------
    def project(name, doc_or_text, message):
        rel = f"projects/{name}.weft"
        text = doc_or_text if isinstance(doc_or_text, str) else json.dumps(doc_or_text, indent=2) + "\n"
        write(rel, text)
        case("project", name, rel, 2, message)

    good_schedule = json.loads(schedule_json(TINY, GOOD_STREAMS, GOOD_EVENTS))
    good = {"format": "weft-project", "version": 1, "model": "", "model_relative": "../tiny.onnx",
            "schedule": good_schedule,
            "settings": {"strategy": "cp-list", "max_streams": 8, "granularity_us": -1, "cuda_graph": False,
                         "lane_widths": "time"}}
    write("projects/good.weft", json.dumps(good, indent=2) + "\n")
    case("project", "control_project", "projects/good.weft", 0, "")
    project("not_json", "{ this is not json\n", "not a JSON object")
    project("not_object", "[\"weft-project\", 1]\n", "not a JSON object")
    project("empty_file", "", "not a JSON object")
    project("wrong_format", dict(good, format="weft-schedule"), "'format' is not weft-project")
    project("wrong_version", dict(good, version=7), "unsupported version 7")
    project("version_not_number", dict(good, version="1"), "unsupported version")
    project("no_model", {k: v for k, v in good.items() if k not in ("model", "model_relative")}, "no model path")
    project("no_schedule", {k: v for k, v in good.items() if k != "schedule"}, "no schedule")
    project("schedule_not_object", dict(good, schedule=[1, 2]), "no schedule")
    project("settings_wrong_types", dict(good, settings={"max_streams": "eight"}), "'max_streams' must be")
    project("dims_not_positive", dict(good, settings={"dims": {"batch": 0}}), "'dims': 'batch' must be bound to a positive integer")

    given_inputs()
    profiles()

    manifest = {"about": "Generated by scripts/make-bad-corpus.py; replayed by tests/cli/test_bad_inputs.cpp "
                         "(weft) and tests/ui/test_bad_inputs_studio.cpp (the studio's loaders). Paths are "
                         "relative to this folder.",
                "cases": cases}
    # One case per line: diffs of the generated manifest stay readable.
    lines = ",\n  ".join(json.dumps(c, separators=(",", ":")) for c in cases)
    write("manifest.json", '{"about": ' + json.dumps(manifest["about"]) + ',\n "cases": [\n  ' + lines + "\n ]\n}\n")
    print(f"{len(cases)} cases written to {os.path.relpath(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
