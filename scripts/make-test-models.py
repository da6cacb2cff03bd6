#!/usr/bin/python3
"""Writes the synthetic ONNX models in tests/data/models that exercise wire layering and
horizontal merging (Debian's python3-onnx). Structure-only, like the other test models: every
initializer keeps its name, type and shape, its bytes are external in `<model>.weights.bin`, which
is deliberately not written (executors seed absent weights). float32.

  grouped_mlp.onnx      a 12-layer grouped MLP: 4 channel groups, each a chain of 12 Gemm layers
                        (width 256 per group); inputs x0..x3 [batch, 256], outputs y0..y3. One launch
                        per group and layer: 48 launches sequentially, 12 when each layer's four
                        group Gemms run as one batched GEMM (the seed's grouped-MLP experiment).
  transformer4h.onnx    one transformer block with 4 heads and head-local feed-forward modules:
                        x [batch, 64, 256] -> per head: Q, K, V projections (256 -> 64), scaled
                        scores, Softmax, context, a head-local FFN (64 -> 256 -> 64, Relu); the
                        heads are concatenated and projected (256 -> 256) and added to x.
  transformer4h_fp16    the same block in half precision (float16 inputs, weights and outputs),
                        as a float16 export writes it; written as tests/data/test_data/
                        transformer4h_fp16/model.onnx (the ONNX test layout, beside its test data
                        set), where Weft's half-precision outputs are checked against ONNX Runtime's.

  randwire_ws.onnx      a RandWire-WS stage (Xie et al. 2019): a Watts-Strogatz graph (n=32, k=4,
                        p=0.75, seeded) made a DAG by node index; each node sums its inputs, then
                        Relu, a 3x3 depthwise and a 1x1 convolution and BatchNormalization (64
                        channels at 28x28); nodes without inputs read the stem, sinks are averaged.

  inception_v3.onnx     Inception-v3 as torchvision builds it for inference (Szegedy et al. 2016):
                        x [batch, 3, 299, 299] -> y [batch, 1000]; every BasicConv2d is a Conv with
                        the BatchNormalization folded in (bias) and a Relu, as exporters write it;
                        no auxiliary head. The model the search and layering goals are quoted on.

  swin_dropout.onnx     a Swin-T-like attention block (LayerNormalization, Q/K/V, Softmax, context,
                        projection, residual) whose two Dropouts run in training mode with ratio 0,
                        as torchvision 0.14's Swin-T export carries them: the identity, run exactly.
  vad_if.onnx           a voice-activity model's shape (silero_vad's): the network inside one top-level
                        If on a runtime input (the sample rate), so the outer graph has two operators
                        and a run has too few to fit a device (its prediction is absent, with why).

`batch` is a symbolic dimension: bind it with --dim batch=N (1 and 32 in the tests).
usage: scripts/make-test-models.py [OUT_DIR]   (default tests/data/models; the fp16 model goes to
       OUT_DIR/../test_data/transformer4h_fp16/model.onnx)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


class Weights:
    """Initializers whose bytes live in an absent external file, laid out one after another."""

    def __init__(self, file_name, elem=TensorProto.FLOAT):
        self.file_name, self.offset, self.elem = file_name, 0, elem

    def __call__(self, name, shape):
        t = TensorProto(name=name, data_type=self.elem, dims=shape)
        length = (2 if self.elem == TensorProto.FLOAT16 else 4) * int(np.prod(shape))
        t.data_location = TensorProto.EXTERNAL
        for key, value in (("location", self.file_name), ("offset", str(self.offset)), ("length", str(length))):
            entry = t.external_data.add()
            entry.key, entry.value = key, value
        self.offset += length
        return t


def grouped_mlp(groups=4, layers=12, width=256):
    weight = Weights("grouped_mlp.weights.bin")
    nodes, inits, inputs, outputs = [], [], [], []
    for g in range(groups):
        inputs.append(helper.make_tensor_value_info(f"x{g}", TensorProto.FLOAT, ["batch", width]))
        prev = f"x{g}"
        for l in range(layers):
            w, b = f"w_g{g}_l{l}", f"b_g{g}_l{l}"
            inits += [weight(w, [width, width]), weight(b, [width])]
            out = f"y{g}" if l == layers - 1 else f"h_g{g}_l{l}"
            nodes.append(helper.make_node("Gemm", [prev, w, b], [out], name=f"gemm_g{g}_l{l}", transB=1))
            prev = out
        outputs.append(helper.make_tensor_value_info(f"y{g}", TensorProto.FLOAT, ["batch", width]))
    graph = helper.make_graph(nodes, "grouped_mlp", inputs, outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="weft")


def transformer4h(heads=4, seq=64, d_model=256, d_head=64, d_ff=256, name="transformer4h", elem=TensorProto.FLOAT):
    weight = Weights(name + ".weights.bin", elem)
    nodes, inits = [], []
    x = helper.make_tensor_value_info("x", elem, ["batch", seq, d_model])
    y = helper.make_tensor_value_info("y", elem, ["batch", seq, d_model])
    scale_type = np.float16 if elem == TensorProto.FLOAT16 else np.float32
    inits.append(numpy_helper.from_array(np.array(1.0 / np.sqrt(d_head), dtype=scale_type), "scale"))
    contexts = []
    for h in range(heads):
        def linear(name, src, fan_in, fan_out):
            w, b = f"{name}_w", f"{name}_b"
            inits.extend([weight(w, [fan_in, fan_out]), weight(b, [fan_out])])
            nodes.append(helper.make_node("MatMul", [src, w], [f"{name}_mm"], name=f"{name}_matmul"))
            nodes.append(helper.make_node("Add", [f"{name}_mm", b], [name], name=f"{name}_bias"))
            return name
        q = linear(f"h{h}_q", "x", d_model, d_head)
        k = linear(f"h{h}_k", "x", d_model, d_head)
        v = linear(f"h{h}_v", "x", d_model, d_head)
        nodes.append(helper.make_node("Transpose", [k], [f"h{h}_kt"], name=f"h{h}_k_transpose", perm=[0, 2, 1]))
        nodes.append(helper.make_node("MatMul", [q, f"h{h}_kt"], [f"h{h}_scores_raw"], name=f"h{h}_scores"))
        nodes.append(helper.make_node("Mul", [f"h{h}_scores_raw", "scale"], [f"h{h}_scores_scaled"], name=f"h{h}_scale"))
        nodes.append(helper.make_node("Softmax", [f"h{h}_scores_scaled"], [f"h{h}_probs"], name=f"h{h}_softmax", axis=-1))
        nodes.append(helper.make_node("MatMul", [f"h{h}_probs", v], [f"h{h}_ctx"], name=f"h{h}_context"))
        f1 = linear(f"h{h}_ff1", f"h{h}_ctx", d_head, d_ff)
        nodes.append(helper.make_node("Relu", [f1], [f"h{h}_ff1_act"], name=f"h{h}_ff1_relu"))
        f2 = linear(f"h{h}_ff2", f"h{h}_ff1_act", d_ff, d_head)
        nodes.append(helper.make_node("Add", [f2, f"h{h}_ctx"], [f"h{h}_out"], name=f"h{h}_residual"))
        contexts.append(f"h{h}_out")
    nodes.append(helper.make_node("Concat", contexts, ["heads"], name="concat_heads", axis=-1))
    inits.extend([weight("proj_w", [heads * d_head, d_model]), weight("proj_b", [d_model])])
    nodes.append(helper.make_node("MatMul", ["heads", "proj_w"], ["proj_mm"], name="proj_matmul"))
    nodes.append(helper.make_node("Add", ["proj_mm", "proj_b"], ["proj"], name="proj_bias"))
    nodes.append(helper.make_node("Add", ["proj", "x"], ["y"], name="block_residual"))
    graph = helper.make_graph(nodes, name, [x], [y], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="weft")


def watts_strogatz(n, k, p, rng):
    """Undirected WS graph: a ring lattice (each node to its k/2 neighbours on each side), each
    edge rewired with probability p to a uniformly chosen node (no self-loops or duplicates)."""
    edges = set()
    for i in range(n):
        for j in range(1, k // 2 + 1):
            edges.add((i, (i + j) % n))
    out = set()
    for (a, b) in sorted(edges):
        if rng.random() < p:
            choices = [c for c in range(n) if c != a and (min(a, c), max(a, c)) not in out]
            if choices:
                b = choices[rng.integers(len(choices))]
        out.add((min(a, b), max(a, b)))
    return sorted(out)


def randwire_ws(n=32, k=4, p=0.75, channels=64, size=28, seed=3):
    rng = np.random.default_rng(seed)
    weight = Weights("randwire_ws.weights.bin")
    nodes, inits = [], []
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", channels, size, size])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", channels, size, size])
    preds = {i: [] for i in range(n)}
    succs = {i: [] for i in range(n)}
    for a, b in watts_strogatz(n, k, p, rng):  # a < b: edges point up the node index
        preds[b].append(a)
        succs[a].append(b)
    for i in range(n):
        ins = [f"n{j}_out" for j in preds[i]] or ["x"]
        agg = ins[0]
        if len(ins) > 1:
            agg = f"n{i}_sum"
            nodes.append(helper.make_node("Sum", ins, [agg], name=f"n{i}_sum"))
        nodes.append(helper.make_node("Relu", [agg], [f"n{i}_relu"], name=f"n{i}_relu"))
        inits.append(weight(f"n{i}_dw_w", [channels, 1, 3, 3]))
        nodes.append(helper.make_node("Conv", [f"n{i}_relu", f"n{i}_dw_w"], [f"n{i}_dw"], name=f"n{i}_dw",
                                      group=channels, kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
        inits.append(weight(f"n{i}_pw_w", [channels, channels, 1, 1]))
        nodes.append(helper.make_node("Conv", [f"n{i}_dw", f"n{i}_pw_w"], [f"n{i}_pw"], name=f"n{i}_pw",
                                      kernel_shape=[1, 1]))
        for part in ("scale", "bias", "mean", "var"):
            inits.append(weight(f"n{i}_bn_{part}", [channels]))
        nodes.append(helper.make_node("BatchNormalization", [f"n{i}_pw"] + [f"n{i}_bn_{q}" for q in ("scale", "bias", "mean", "var")],
                                      [f"n{i}_out"], name=f"n{i}_bn"))
    sinks = [f"n{i}_out" for i in range(n) if not succs[i]]
    if len(sinks) == 1:
        nodes.append(helper.make_node("Identity", sinks, ["y"], name="output"))
    else:
        nodes.append(helper.make_node("Mean", sinks, ["y"], name="output"))
    graph = helper.make_graph(nodes, "randwire_ws", [x], [y], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="weft")


def inception_v3(num_classes=1000):
    weight = Weights("inception_v3.weights.bin")
    nodes, inits = [], []
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 299, 299])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", num_classes])

    def conv(name, src, cin, cout, k, stride=1, pad=(0, 0)):
        kh, kw = (k, k) if isinstance(k, int) else k
        ph, pw = pad
        inits.extend([weight(f"{name}_w", [cout, cin, kh, kw]), weight(f"{name}_b", [cout])])
        nodes.append(helper.make_node("Conv", [src, f"{name}_w", f"{name}_b"], [f"{name}_conv"], name=f"{name}_conv",
                                      kernel_shape=[kh, kw], strides=[stride, stride], pads=[ph, pw, ph, pw]))
        nodes.append(helper.make_node("Relu", [f"{name}_conv"], [name], name=f"{name}_relu"))
        return name

    def max_pool(name, src):
        nodes.append(helper.make_node("MaxPool", [src], [name], name=name, kernel_shape=[3, 3], strides=[2, 2]))
        return name

    def avg_pool(name, src):  # 3x3, stride 1, padding 1, padding counted (torchvision's default)
        nodes.append(helper.make_node("AveragePool", [src], [name], name=name, kernel_shape=[3, 3], strides=[1, 1],
                                      pads=[1, 1, 1, 1], count_include_pad=1))
        return name

    def concat(name, srcs):
        nodes.append(helper.make_node("Concat", srcs, [name], name=name, axis=1))
        return name

    def block_a(n, src, cin, pool_features):
        b1 = conv(f"{n}_b1x1", src, cin, 64, 1)
        b5 = conv(f"{n}_b5x5_2", conv(f"{n}_b5x5_1", src, cin, 48, 1), 48, 64, 5, pad=(2, 2))
        b3 = conv(f"{n}_b3x3dbl_1", src, cin, 64, 1)
        b3 = conv(f"{n}_b3x3dbl_2", b3, 64, 96, 3, pad=(1, 1))
        b3 = conv(f"{n}_b3x3dbl_3", b3, 96, 96, 3, pad=(1, 1))
        bp = conv(f"{n}_bpool", avg_pool(f"{n}_pool", src), cin, pool_features, 1)
        return concat(n, [b1, b5, b3, bp]), 224 + pool_features

    def block_b(n, src, cin):
        b3 = conv(f"{n}_b3x3", src, cin, 384, 3, stride=2)
        bd = conv(f"{n}_b3x3dbl_1", src, cin, 64, 1)
        bd = conv(f"{n}_b3x3dbl_2", bd, 64, 96, 3, pad=(1, 1))
        bd = conv(f"{n}_b3x3dbl_3", bd, 96, 96, 3, stride=2)
        return concat(n, [b3, bd, max_pool(f"{n}_pool", src)]), 480 + cin

    def block_c(n, src, cin, c7):
        b1 = conv(f"{n}_b1x1", src, cin, 192, 1)
        b7 = conv(f"{n}_b7x7_1", src, cin, c7, 1)
        b7 = conv(f"{n}_b7x7_2", b7, c7, c7, (1, 7), pad=(0, 3))
        b7 = conv(f"{n}_b7x7_3", b7, c7, 192, (7, 1), pad=(3, 0))
        bd = conv(f"{n}_b7x7dbl_1", src, cin, c7, 1)
        bd = conv(f"{n}_b7x7dbl_2", bd, c7, c7, (7, 1), pad=(3, 0))
        bd = conv(f"{n}_b7x7dbl_3", bd, c7, c7, (1, 7), pad=(0, 3))
        bd = conv(f"{n}_b7x7dbl_4", bd, c7, c7, (7, 1), pad=(3, 0))
        bd = conv(f"{n}_b7x7dbl_5", bd, c7, 192, (1, 7), pad=(0, 3))
        bp = conv(f"{n}_bpool", avg_pool(f"{n}_pool", src), cin, 192, 1)
        return concat(n, [b1, b7, bd, bp]), 768

    def block_d(n, src, cin):
        b3 = conv(f"{n}_b3x3_2", conv(f"{n}_b3x3_1", src, cin, 192, 1), 192, 320, 3, stride=2)
        b7 = conv(f"{n}_b7x7x3_1", src, cin, 192, 1)
        b7 = conv(f"{n}_b7x7x3_2", b7, 192, 192, (1, 7), pad=(0, 3))
        b7 = conv(f"{n}_b7x7x3_3", b7, 192, 192, (7, 1), pad=(3, 0))
        b7 = conv(f"{n}_b7x7x3_4", b7, 192, 192, 3, stride=2)
        return concat(n, [b3, b7, max_pool(f"{n}_pool", src)]), 512 + cin

    def block_e(n, src, cin):
        b1 = conv(f"{n}_b1x1", src, cin, 320, 1)
        b3 = conv(f"{n}_b3x3_1", src, cin, 384, 1)
        b3 = concat(f"{n}_b3x3", [conv(f"{n}_b3x3_2a", b3, 384, 384, (1, 3), pad=(0, 1)),
                                  conv(f"{n}_b3x3_2b", b3, 384, 384, (3, 1), pad=(1, 0))])
        bd = conv(f"{n}_b3x3dbl_1", src, cin, 448, 1)
        bd = conv(f"{n}_b3x3dbl_2", bd, 448, 384, 3, pad=(1, 1))
        bd = concat(f"{n}_b3x3dbl", [conv(f"{n}_b3x3dbl_3a", bd, 384, 384, (1, 3), pad=(0, 1)),
                                     conv(f"{n}_b3x3dbl_3b", bd, 384, 384, (3, 1), pad=(1, 0))])
        bp = conv(f"{n}_bpool", avg_pool(f"{n}_pool", src), cin, 192, 1)
        return concat(n, [b1, b3, bd, bp]), 2048

    t = conv("Conv2d_1a_3x3", "x", 3, 32, 3, stride=2)
    t = conv("Conv2d_2a_3x3", t, 32, 32, 3)
    t = conv("Conv2d_2b_3x3", t, 32, 64, 3, pad=(1, 1))
    t = max_pool("maxpool1", t)
    t = conv("Conv2d_3b_1x1", t, 64, 80, 1)
    t = conv("Conv2d_4a_3x3", t, 80, 192, 3)
    t = max_pool("maxpool2", t)
    c = 192
    t, c = block_a("Mixed_5b", t, c, 32)
    t, c = block_a("Mixed_5c", t, c, 64)
    t, c = block_a("Mixed_5d", t, c, 64)
    t, c = block_b("Mixed_6a", t, c)
    for n, c7 in (("Mixed_6b", 128), ("Mixed_6c", 160), ("Mixed_6d", 160), ("Mixed_6e", 192)):
        t, c = block_c(n, t, c, c7)
    t, c = block_d("Mixed_7a", t, c)
    t, c = block_e("Mixed_7b", t, c)
    t, c = block_e("Mixed_7c", t, c)
    nodes.append(helper.make_node("GlobalAveragePool", [t], ["avgpool"], name="avgpool"))
    nodes.append(helper.make_node("Flatten", ["avgpool"], ["flatten"], name="flatten", axis=1))
    inits.extend([weight("fc_w", [num_classes, c]), weight("fc_b", [num_classes])])
    nodes.append(helper.make_node("Gemm", ["flatten", "fc_w", "fc_b"], ["y"], name="fc", transB=1))
    graph = helper.make_graph(nodes, "inception_v3", [x], [y], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="weft")


def swin_dropout(tokens=49, width=96, heads_width=32):
    """A Swin-T-like attention block as torchvision 0.14 exports it: every Dropout in training mode
    (the exporter passes no `training=`) with ratio 0, which is the identity."""
    weight = Weights("swin_dropout.weights.bin")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", tokens, width])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", tokens, width])
    inits = [weight("ln_scale", [width]), weight("ln_bias", [width]),
             weight("wq", [width, heads_width]), weight("wk", [width, heads_width]), weight("wv", [width, heads_width]),
             weight("wo", [heads_width, width]),
             # Inline: these are the values that make the Dropouts the identity.
             helper.make_tensor("drop_ratio", TensorProto.FLOAT, [], [0.0]),
             helper.make_tensor("drop_training", TensorProto.BOOL, [], [True])]
    nodes = [helper.make_node("LayerNormalization", ["x", "ln_scale", "ln_bias"], ["ln"], name="norm1", axis=-1, epsilon=1e-5)]
    for p in ("q", "k", "v"):
        nodes.append(helper.make_node("MatMul", ["ln", "w" + p], [p], name="attn/" + p))
    nodes += [helper.make_node("Transpose", ["k"], ["kt"], name="attn/kt", perm=[0, 2, 1]),
              helper.make_node("MatMul", ["q", "kt"], ["scores"], name="attn/scores"),
              helper.make_node("Softmax", ["scores"], ["probs"], name="attn/softmax", axis=-1),
              helper.make_node("Dropout", ["probs", "drop_ratio", "drop_training"], ["probs_d"], name="attn/attn_drop"),
              helper.make_node("MatMul", ["probs_d", "v"], ["ctx"], name="attn/context"),
              helper.make_node("MatMul", ["ctx", "wo"], ["proj"], name="attn/proj"),
              helper.make_node("Dropout", ["proj", "drop_ratio", "drop_training"], ["proj_d"], name="attn/proj_drop"),
              helper.make_node("Add", ["x", "proj_d"], ["y"], name="residual")]
    graph = helper.make_graph(nodes, "swin_dropout", [x], [y], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="weft")


def vad_if(width=64):
    """A voice-activity model's shape as silero_vad exports it: the whole network inside one top-level If
    whose condition reads a runtime input (the sample rate), so the outer graph has two operators."""
    weight = Weights("vad_if.weights.bin")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", width])
    sr = helper.make_tensor_value_info("sr", TensorProto.INT64, [])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", width])
    inits = [weight("w16k", [width, width]), weight("w8k", [width, width]),
             helper.make_tensor("rate16k", TensorProto.INT64, [], [16000])]

    def branch(name, w, act):
        out = helper.make_tensor_value_info(name + "_y", TensorProto.FLOAT, ["batch", width])
        return helper.make_graph([helper.make_node("MatMul", ["x", w], [name + "_m"], name=name + "/matmul"),
                                  helper.make_node(act, [name + "_m"], [name + "_y"], name=name + "/" + act.lower())],
                                 name, [], [out])

    nodes = [helper.make_node("Equal", ["sr", "rate16k"], ["is16k"], name="rate_check"),
             helper.make_node("If", ["is16k"], ["y"], name="by_rate", then_branch=branch("then", "w16k", "Relu"),
                              else_branch=branch("else", "w8k", "Sigmoid"))]
    graph = helper.make_graph(nodes, "vad_if", [x, sr], [y], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="weft")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "data", "models")
    fp16 = os.path.join(out, "..", "test_data", "transformer4h_fp16", "model.onnx")
    for path, model in ((os.path.join(out, "grouped_mlp.onnx"), grouped_mlp()),
                        (os.path.join(out, "transformer4h.onnx"), transformer4h()),
                        (os.path.join(out, "randwire_ws.onnx"), randwire_ws()),
                        (os.path.join(out, "inception_v3.onnx"), inception_v3()),
                        (os.path.join(out, "swin_dropout.onnx"), swin_dropout()),
                        (os.path.join(out, "vad_if.onnx"), vad_if()),
                        (fp16, transformer4h(name="transformer4h_fp16", elem=TensorProto.FLOAT16))):
        # The checker would open the absent weight file; strict shape inference checks the
        # operators, attributes and types instead.
        onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        onnx.save(model, path)
        print(f"{path}: {len(model.graph.node)} nodes, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
