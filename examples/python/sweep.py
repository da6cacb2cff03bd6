#!/usr/bin/env python3
"""Sweep Weft's strategies over batch sizes: predicted speedup (CUDA Graph replay and eager
launches), streams, events and the memory price of concurrency, optionally a CPU run of each
schedule, and a plot where matplotlib is installed.

    PYTHONPATH=build/ci/python python3 examples/python/sweep.py tests/data/models/grouped_mlp.onnx \
        --batch 1 8 32 --plot sweep.png

--batch binds the model's symbolic batch dimension (--dim-name, default 'batch'); models without
one take --batch 0 (as exported).
"""
import argparse
import sys

import weft


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 8], help="batch sizes (0: the model as exported)")
    ap.add_argument("--dim-name", default="batch", help="the symbolic dimension --batch binds")
    ap.add_argument("--device", default=None, help="device preset (weft.devices())")
    ap.add_argument("--strategies", nargs="+", default=None, help="default: every strategy but search")
    ap.add_argument("--run-cpu", action="store_true", help="also run each schedule on the CPU executor")
    ap.add_argument("--plot", default=None, help="write a PNG of predicted speedup per strategy and batch")
    args = ap.parse_args()

    strategies = args.strategies or [s["name"] for s in weft.strategies() if not s["iterative"]]
    rows = []
    print(f"{'batch':>5} {'strategy':<15} {'streams':>7} {'events':>6} {'graph x':>8} {'eager x':>8} "
          f"{'arena MiB':>9} {'price':>6}" + (f" {'cpu x':>6}" if args.run_cpu else ""))
    for batch in args.batch:
        dims = {args.dim_name: batch} if batch > 0 else None
        try:
            model = weft.load(args.model, dims=dims, device=args.device)
        except weft.Error as e:
            print(f"weft: {e.kind}: {e.message}", file=sys.stderr)
            return 2
        for name in strategies:
            for graph in (True, False):
                s = model.schedule(name, cuda_graph=graph)
                pred = model.simulate(s, graph=graph)
                if graph:
                    graph_x, schedule = pred.speedup, s
                else:
                    eager_x = pred.speedup
            plan = model.plan(schedule)
            row = dict(batch=batch, strategy=name, streams=schedule.stream_count, events=len(schedule.events),
                       graph_x=graph_x, eager_x=eager_x, arena=plan.arena_bytes / 2**20, price=plan.price_of_concurrency)
            line = (f"{batch:>5} {name:<15} {row['streams']:>7} {row['events']:>6} {graph_x:>8.2f} {eager_x:>8.2f} "
                    f"{row['arena']:>9.2f} {row['price']:>6.2f}")
            if args.run_cpu:
                run = model.run(schedule, iterations=3, warmup=1)
                if not run.identical:
                    print(f"{name}: outputs differ from the sequential run", file=sys.stderr)
                    return 4
                row["cpu_x"] = run.speedup
                line += f" {run.speedup:>6.2f}"
            rows.append(row)
            print(line)
    best = max(rows, key=lambda r: r["graph_x"])
    print(f"best: {best['strategy']} at batch {best['batch']}: {best['graph_x']:.2f}x predicted over the "
          f"sequential CUDA Graph, {best['streams']} streams, price of concurrency {best['price']:.2f}")

    if args.plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib is not installed: no plot (apt-get install python3-matplotlib)")
            return 0
        fig, ax = plt.subplots(figsize=(7, 4))
        for name in strategies:
            pts = [(r["batch"], r["graph_x"]) for r in rows if r["strategy"] == name]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
        ax.set_xlabel(f"{args.dim_name}")
        ax.set_ylabel("predicted speedup over sequential CUDA Graph")
        ax.set_title(model.path.rsplit("/", 1)[-1])
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
