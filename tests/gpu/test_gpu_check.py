#!/usr/bin/env python3
"""The one-shot GPU check (scripts/gpu-check.sh) without a GPU: its plan fits the device time, its
summariser marks rows that are not measurements without losing the table, and a whole run on a
machine without a GPU returns every file it writes within the device tool's limits.

Usage: test_gpu_check.py plan|summary|dry-run SOURCE_DIR [WEFT]   (ctest: gpu.check_*)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# The device tool's limits (its README): 15 minutes of device time per session, machine start
# included; at most 8 files come back, each at most 16 MiB, names of letters, digits, '.', '_',
# '-', at most two folders deep.
DEVICE_SECONDS = 900
MAX_FILES = 8
MAX_FILE_BYTES = 16 * 1024 * 1024
NAME = re.compile(r"^[A-Za-z0-9._-]+$")

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAILED: " + what)


def plan_of(source, steps=None):
    env = dict(os.environ)
    env.pop("STEPS", None)
    if steps:
        env["STEPS"] = steps
    out = subprocess.run(["bash", os.path.join(source, "scripts/gpu-check.sh"), "--plan"], env=env, capture_output=True,
                         text=True, timeout=30)
    check(out.returncode == 0, f"--plan exits 0 (got {out.returncode}: {out.stderr.strip()})")
    total = re.search(r"^total: (\d+) s .*timeout_s: (\d+)$", out.stdout, re.M)
    left = re.search(r"left for a rerun: (-?\d+) s", out.stdout)
    check(total is not None and left is not None, "--plan prints the total, the call's timeout and what is left:\n" + out.stdout)
    if not total or not left:
        return None
    limits = [int(m.group(1)) for m in re.finditer(r"^  \S+ +(\d+) s  ", out.stdout, re.M)]
    command = re.search(r"^device call: command: (.*)$", out.stdout, re.M)
    check(command is not None and "build/gpu-bundle.tar.xz" in command.group(1), "--plan prints the device call's command")
    return {"text": out.stdout, "total": int(total.group(1)), "timeout": int(total.group(2)), "left": int(left.group(1)),
            "limits": limits, "command": command.group(1) if command else ""}


# The whole check fits 8 minutes, every step has a limit, and the headline steps alone fit in what
# the first call leaves of the session's device time: a rerun of them is possible.
def test_plan(source):
    whole = plan_of(source)
    if not whole:
        return
    print(whole["text"])
    check(whole["total"] <= 8 * 60, f"the plan's total {whole['total']} s fits 8 minutes")
    check(len(whole["limits"]) >= 8 and all(l > 0 for l in whole["limits"]), "every step has a limit")
    check(sum(whole["limits"]) == whole["total"], "the total is the sum of the limits")
    check(whole["timeout"] > whole["total"], "the call's timeout leaves room beyond the steps")
    headline = plan_of(source, "setup smoke table")
    if headline:
        check(headline["total"] < whole["total"], "STEPS limits the plan")
        check(headline["timeout"] <= whole["left"],
              f"a rerun of the headline steps ({headline['timeout']} s) fits the {whole['left']} s the first call leaves")
    # The order of value: the headline table and PyTorch's baseline before merge, split, sweep, sanitizer.
    order = [m.group(1) for m in re.finditer(r"^  (\w+) +\d+ s  ", whole["text"], re.M)]
    check(order[:4] == ["setup", "smoke", "table", "torch"], f"the headline and PyTorch come first: {order}")
    check(order.index("merge") < order.index("split") < order.index("sweep") < order.index("sanitizer"),
          f"then merge, split, sweep, sanitizer: {order}")


# A recorded runs file with a valid row, a blocking rerun, a failed stage, a missing field, a run
# without any report and a line that is not JSON: the table marks each and loses none.
def test_summary(source):
    records = [
        {"step": "table", "model": "googlenet", "batch": 1, "strategy": "cp-list", "exit": 0,
         "run": {"streams": 4, "sequential_ms": 2.0, "sequential_graph_ms": 1.5, "schedule_ms": 1.2, "schedule_graph_ms": 0.8,
                 "speedup_vs_graph": 1.875, "predicted_speedup_vs_graph": 1.8, "max_abs_error_vs_cpu": 2e-6,
                 "max_rel_error_vs_cpu": 3e-7, "valid": True,
                 "test_data": {"passed": True, "sets": [{"outputs": [
                     {"run": "cuda scheduled", "max_scaled_error": 4e-7}, {"run": "cuda sequential", "max_scaled_error": 6e-7},
                     {"run": "cpu reference", "max_scaled_error": 9e-7}]}]}},
         "simulate": {"speedup_vs_graph": 1.7}},
        {"step": "table", "model": "inception_v3", "batch": 1, "strategy": "cp-list", "exit": 3,
         "run": {"streams": 4, "sequential_ms": 9.0, "sequential_graph_ms": 8.0, "schedule_ms": 7.0, "schedule_graph_ms": 6.0,
                 "speedup_vs_graph": 1.33, "blocking_rerun": True, "valid": False,
                 "fault": {"stage": "Running cp-list on cuda-graph", "message": "cudaGraphLaunch: illegal address"}},
         "simulate": None},
        {"step": "table", "model": "randwire_ws", "batch": 1, "strategy": "level-rr", "exit": 3,
         "run": {"streams": 2, "sequential_ms": 3.0, "schedule_ms": 2.5, "sequential_graph_ms": None, "schedule_graph_ms": None,
                 "failed_stage": "Running sequentially on cuda-graph", "error": "cudaStreamEndCapture: capture invalidated"},
         "simulate": {"speedup_vs_graph": 1.2}},
        {"step": "table", "model": "resnet50", "batch": 1, "strategy": "sequential", "exit": 0,
         "run": {"streams": 1, "sequential_ms": 4.0, "schedule_ms": None, "max_rel_error_vs_cpu": 5e-7},
         "simulate": {}},
        {"step": "table", "model": "squeezenet1_1", "batch": 1, "strategy": "cp-list", "exit": 5,
         "run": {"streams": 2, "sequential_ms": 1.0, "schedule_ms": 0.9, "max_rel_error_vs_cpu": 2e-7,
                 "test_data": {"passed": False, "sets": [{"outputs": [{"run": "cuda scheduled", "max_scaled_error": 0.3}]}]}}},
        {"step": "merge", "model": "grouped_mlp", "batch": 32, "strategy": "sequential", "exit": 124, "run": None,
         "stderr_tail": "weft run: warning: something\n"},
        {"step": "merge", "model": "grouped_mlp", "batch": 1, "strategy": "sequential", "exit": 0,
         "run": {"streams": 1, "sequential_ms": 1.0, "schedule_ms": 0.5, "max_rel_error_vs_cpu": 2e-3,
                 "merged_paths": {"batched GEMM": 12}},
         "simulate": {"speedup_vs_graph": 1.0, "merge": {"speedup_vs_unmerged_graph": 4.0}}},
    ]
    with tempfile.TemporaryDirectory() as tmp:
        runs = os.path.join(tmp, "weft-runs.jsonl")
        with open(runs, "w") as f:
            for r in records[:3]:
                f.write(json.dumps(r) + "\n")
            f.write('{"step": "table", "model": "cut off mid-wr\n')
            for r in records[3:]:
                f.write(json.dumps(r) + "\n")
        out = subprocess.run([sys.executable, os.path.join(source, "scripts/gpu-summary.py"), "table", runs], capture_output=True,
                             text=True, timeout=30)
        print(out.stdout)
        check(out.returncode == 0, f"the summariser exits 0 (got {out.returncode}: {out.stderr})")
        lines = out.stdout.splitlines()

        def row(model, batch=None):
            found = [l for l in lines if l.startswith(model) and (batch is None or l.split()[1] == str(batch))]
            check(len(found) == 1, f"one row for {model} {batch or ''}: {found}")
            return found[0] if found else ""

        good = row("googlenet")
        check(good.endswith("ok") and "1.88x" in good and "0.800" in good and "3.0e-07" in good, f"the valid row: {good}")
        rerun = row("inception_v3")
        check("INVALID" in rerun and "illegal address" in rerun and "9.000" not in rerun,
              f"the blocking rerun reads INVALID with its fault and no times: {rerun}")
        partial = row("randwire_ws")
        check("PARTIAL" in partial and "capture invalidated" in partial and "3.000" in partial,
              f"a failed stage keeps the stages done and names the failure: {partial}")
        missing = row("resnet50")
        check("4.000" in missing and " - " in missing and "unreadable" not in missing, f"missing fields show as '-': {missing}")
        check("FAILED" in row("grouped_mlp", 32), "a run without a report is FAILED")
        check("ORT-MISMATCH" in row("squeezenet1_1"), "outputs unlike ONNX Runtime's are marked")
        check(any("vs ONNX Runtime (test data): largest error 6.0e-07" in l for l in lines),
              "the GPU runs' largest error against ORT is shown (the CPU reference's is not counted)")
        err = row("grouped_mlp", 1)
        check("ERR>0.0001" in err, f"outputs beyond the relative tolerance are marked: {err}")
        check("4.00x" in err, f"a merged row's prediction is against the unmerged graph: {err}")
        check(any("batched GEMM" in l for l in lines), "merged paths are shown")
        check(any(re.match(r"line 4 of .*: not a JSON record", l) for l in lines), "the cut-off line is named")
        check(any(l.startswith("rows: ") and "1 INVALID" in l and "1 PARTIAL" in l and "1 unreadable" in l for l in lines),
              "the count of rows by verdict")

        # A record whose run holds nulls and wrong types where numbers belong still makes a row.
        odd = os.path.join(tmp, "odd.json")
        with open(odd, "w") as f:
            json.dump({"model": "odd", "batch": "x", "run": {"streams": None, "sequential_ms": "fast", "speedup_vs_graph": float("nan")}}, f)
        one = subprocess.run([sys.executable, os.path.join(source, "scripts/gpu-summary.py"), "row", odd], capture_output=True, text=True)
        check(one.returncode == 0 and one.stdout.startswith("odd"), f"an odd record still makes a row: {one.stdout} {one.stderr}")

        # `record` appends what a run left (no report: null) and prints its row at once.
        err_file = os.path.join(tmp, "err.txt")
        with open(err_file, "w") as f:
            f.write("weft run: error: no CUDA device: cudaGetDeviceCount: no CUDA-capable device\n")
        rec = subprocess.run([sys.executable, os.path.join(source, "scripts/gpu-summary.py"), "record", runs, "step=smoke",
                              "model=squeezenet1_1", "batch=1", "strategy=cp-list", "exit=3", "seconds=0.4",
                              "run=" + os.path.join(tmp, "absent.json"), "stderr=" + err_file], capture_output=True, text=True)
        check(rec.returncode == 0 and "FAILED" in rec.stdout and "no CUDA device" in rec.stdout, f"record prints the row: {rec.stdout}")
        with open(runs) as f:
            last = json.loads(f.read().splitlines()[-1])
        check(last.get("run") is None and last.get("exit") == 3 and last.get("step") == "smoke", f"record appends the record: {last}")


# The whole check on this machine (no GPU), started by the device call's own command from the packed
# bundle: every step runs and says why it measured nothing, the CPU reference agrees with itself,
# and what comes back obeys the device tool's limits.
def test_dry_run(source, weft):
    with tempfile.TemporaryDirectory() as tmp:
        bundle = os.path.join(tmp, "gpu-bundle")
        os.makedirs(os.path.join(bundle, "data"))
        shutil.copy(os.path.join(source, "scripts/gpu-check.sh"), bundle)
        shutil.copy(os.path.join(source, "scripts/gpu-summary.py"), os.path.join(bundle, "gpu_summary.py"))
        shutil.copy(os.path.join(source, "scripts/gpu-torch-baseline.py"), os.path.join(bundle, "torch_baseline.py"))
        shutil.copy(weft, os.path.join(bundle, "weft"))
        os.chmod(os.path.join(bundle, "weft"), 0o644)  # exec bits lost in transit: the check restores them
        os.symlink(os.path.join(source, "tests/data/models"), os.path.join(bundle, "data/models"))
        os.symlink(os.path.join(source, "tests/data/test_data"), os.path.join(bundle, "data/test_data"))
        os.symlink(os.environ.get("WEFT_ASSETS_DIR", os.path.join(source, "assets")), os.path.join(bundle, "assets"))
        out = os.path.join(tmp, "out")
        env = dict(os.environ, OUT=out, ITER="2", WARMUP="1")
        env.pop("STEPS", None)
        # Packed as scripts/gpu-bundle.sh packs it, unpacked and run by the command --plan prints (its
        # unpacking folder moved into this test's own).
        os.makedirs(os.path.join(tmp, "checkout", "build"))
        subprocess.run(["tar", "-C", tmp, "-cJf", os.path.join(tmp, "checkout", "build", "gpu-bundle.tar.xz"), "gpu-bundle"], check=True)
        shutil.rmtree(bundle)
        command = plan_of(source)["command"].replace("/tmp/wb", os.path.join(tmp, "unpacked"))
        run = subprocess.run(["bash", "-c", command], cwd=os.path.join(tmp, "checkout"), env=env, capture_output=True, text=True,
                             timeout=600)
        print(run.stdout[-6000:])
        print(run.stderr[-2000:], file=sys.stderr)
        check(run.returncode in (0, 1), f"the check ends by itself (exit {run.returncode})")

        files = []
        for root, dirs, names in os.walk(out):
            depth = os.path.relpath(root, out).count(os.sep) + (0 if root == out else 1)
            check(depth <= 2, f"at most two folders deep: {root}")
            for n in names:
                files.append(os.path.join(root, n))
                check(bool(NAME.match(n)), f"a plain file name: {n}")
                check(not os.path.islink(os.path.join(root, n)), f"not a link: {n}")
                check(os.path.getsize(os.path.join(root, n)) <= MAX_FILE_BYTES, f"at most 16 MiB: {n}")
        check(0 < len(files) <= MAX_FILES, f"at most {MAX_FILES} files come back: {files}")

        with open(os.path.join(out, "summary.txt")) as f:
            summary = f.read()
        for step in ("setup", "smoke", "table", "torch", "merge", "split", "launch", "sweep", "tests", "sanitizer"):
            check(re.search(rf"^== {step}: ", summary, re.M) is not None, f"the summary has the {step} step")
        check("CPU reference: two runs agree" in summary, "the CPU reference agrees with itself")
        with open(os.path.join(out, "weft-runs.jsonl")) as f:
            records = [json.loads(l) for l in f if l.strip()]
        models = [(r["step"], r["model"]) for r in records]
        for m in ("googlenet", "inception_v3", "randwire_ws", "resnet50"):
            check(("table", m) in models, f"a headline record for {m}: {models}")
        check(("smoke", "squeezenet1_1") in models and ("split", "resnet50") in models and ("merge", "grouped_mlp") in models,
              f"smoke, merge and split records: {models}")
        # Without a GPU no run has a report, and each row says why in the run's own words.
        for r in records:
            check(r.get("run") is None and r.get("exit") not in (0, None), f"no measurement without a GPU: {r.get('model')}")
        check(re.search(r"^googlenet .*FAILED: exit \d+: .*(CUDA|cuda)", summary, re.M) is not None,
              "the googlenet row says why it failed")
        # The advice chose each headline row's strategy (no GPU needed for that).
        check(all(r.get("strategy") not in (None, "", "?") for r in records if r["step"] == "table"), "strategies from the advice")


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    what, source = argv[1], argv[2]
    if what == "plan":
        test_plan(source)
    elif what == "summary":
        test_summary(source)
    elif what == "dry-run":
        test_dry_run(source, argv[3])
    else:
        print(__doc__)
        return 2
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
