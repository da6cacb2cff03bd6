#!/usr/bin/env python3
"""PyTorch/torchvision baselines for Weft's GPU table (run by gpu-check.sh in the GPU bundle).

The architectures of Weft's models (googlenet, inception_v3, resnet50 by default; squeezenet1_1,
vit_b_16 on request) with random weights, float32, eval mode under torch.inference_mode, NCHW,
TF32 off and torch.backends.cudnn.benchmark = False (cuDNN's heuristics, as Weft's executor uses;
docs/gpu.md states the same), at each batch size: the median iteration eager, and replayed as one
captured CUDA Graph. randwire_ws and ppocr_v4_det have no torchvision architecture and are left
out. Every model runs in its own try/except: a failure prints a line and the script carries on.
Prints a table; --out writes JSON after every model, so a run cut short keeps the models done.
Written to be run where it cannot be tested beforehand: plain APIs only, every step guarded.
"""
import argparse
import json
import statistics
import sys
import time


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", default="", help="JSON results file")
    p.add_argument("--batches", type=int, nargs="+", default=[1, 8])
    p.add_argument("--iters", type=int, default=30, help="timed iterations per mode")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--models", nargs="+", default=["googlenet", "inception_v3", "resnet50"])
    return p.parse_args()


def build(torchvision, name):
    m = torchvision.models
    if name == "googlenet":
        # Weft's googlenet has no auxiliary heads; init_weights=False skips scipy's slow init.
        return m.googlenet(weights=None, aux_logits=False, init_weights=False)
    if name == "squeezenet1_1":
        return m.squeezenet1_1(weights=None)
    if name == "inception_v3":
        # Weft's inception_v3 has no auxiliary head and no input transform (299 x 299 input).
        return m.inception_v3(weights=None, aux_logits=False, init_weights=False, transform_input=False)
    if name == "resnet50":
        return m.resnet50(weights=None)
    if name == "vit_b_16":
        return m.vit_b_16(weights=None)
    raise ValueError("unknown model " + name)


def median_ms(torch, fn, iters, warmup):
    """Median of per-iteration CUDA-event times (ms) after warm-up."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def measure(torch, torchvision, name, batch, iters, warmup):
    row = {"model": name, "batch": batch}
    model = build(torchvision, name).cuda().eval()
    side_px = 299 if name == "inception_v3" else 224
    x = torch.randn(batch, 3, side_px, side_px, device="cuda", dtype=torch.float32)
    with torch.inference_mode():
        row["eager_ms"] = median_ms(torch, lambda: model(x), iters, warmup)
        # CUDA Graph: warm up on a side stream (as PyTorch's documentation asks), capture one
        # forward pass, then time replays.
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                model(x)
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            y = model(x)
        graph.replay()
        torch.cuda.synchronize()
        row["graph_ms"] = median_ms(torch, graph.replay, iters, warmup)
        row["graph_matches_eager"] = bool(torch.allclose(model(x), y, rtol=1e-4, atol=1e-4))
    del graph, model, x
    torch.cuda.empty_cache()
    return row


def main():
    args = parse_args()
    results = {"rows": [], "errors": []}
    try:
        import torch
        import torchvision
    except Exception as e:  # noqa: BLE001 - report whatever keeps torch from importing
        print("torch baseline: cannot import torch/torchvision: %r" % (e,))
        results["errors"].append("import: %r" % (e,))
        write(args.out, results)
        return 0
    results["torch"] = torch.__version__
    results["torchvision"] = torchvision.__version__
    if not torch.cuda.is_available():
        print("torch baseline: torch %s sees no CUDA device" % torch.__version__)
        results["errors"].append("no CUDA device")
        write(args.out, results)
        return 0
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = False
    torch.manual_seed(0)
    results["device"] = torch.cuda.get_device_name(0)
    results["cuda"] = torch.version.cuda
    results["cudnn"] = torch.backends.cudnn.version()
    results["cudnn_benchmark"] = torch.backends.cudnn.benchmark
    print("torch %s, torchvision %s, CUDA %s, cuDNN %s on %s; float32, TF32 off, cudnn.benchmark off; median of %d after %d warm-up"
          % (torch.__version__, torchvision.__version__, torch.version.cuda, torch.backends.cudnn.version(), results["device"],
             args.iters, args.warmup))
    print("%-15s %6s %10s %10s %8s" % ("model", "batch", "eager ms", "graph ms", "graph=eager"))
    for name in args.models:
        for batch in args.batches:
            t = time.time()
            try:
                row = measure(torch, torchvision, name, batch, args.iters, args.warmup)
                row["seconds"] = round(time.time() - t, 1)
                results["rows"].append(row)
                print("%-15s %6d %10.3f %10.3f %8s" % (name, batch, row["eager_ms"], row["graph_ms"], row["graph_matches_eager"]))
            except Exception as e:  # noqa: BLE001 - one model's failure must not stop the others
                results["errors"].append("%s batch %d: %r" % (name, batch, e))
                print("%-15s %6d FAILED: %r" % (name, batch, e))
                try:
                    torch.cuda.synchronize()
                    torch.cuda.empty_cache()
                except Exception:  # noqa: BLE001
                    pass
            write(args.out, results)  # after every model: a run cut short keeps what was measured
            sys.stdout.flush()
    print("randwire_ws, ppocr_v4_det: no torchvision architecture (Weft's rows only)")
    write(args.out, results)
    return 0


def write(path, results):
    if not path:
        return
    try:
        with open(path, "w") as f:
            json.dump(results, f, indent=1)
    except Exception as e:  # noqa: BLE001
        print("torch baseline: cannot write %s: %r" % (path, e))


if __name__ == "__main__":
    sys.exit(main())
