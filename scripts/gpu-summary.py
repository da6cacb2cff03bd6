#!/usr/bin/env python3
"""Summary rows of Weft's GPU check (scripts/gpu-check.sh; bundled as gpu_summary.py).

The check appends one JSON record per measured run to weft-runs.jsonl as soon as the run ends:
  {"step": "table"|"smoke"|"merge"|"split", "model": ..., "batch": ..., "strategy": ...,
   "streams": ..., "exit": int, "seconds": float, "run": <weft run --json> or null,
   "simulate": <weft simulate --json> or null, "stderr_tail": "..."}
and calls `row` on it, so a row reaches summary.txt even if the machine is taken back later.
`table` prints every row again from the file, grouped by step, and `torch` sets Weft's
sequential baselines beside PyTorch's (torch.json).

Every row is formatted inside its own guard: a missing key, a null, a record that is not JSON
prints a marked row and never loses the rest of the table. A run that is not a measurement is
marked:
  INVALID   the blocking rerun after a kernel fault (CUDA_LAUNCH_BLOCKING=1, every node
            synchronised, replay off): its times say nothing about the schedule; the fault is shown
  PARTIAL   a stage failed after others were measured (failed_stage): the stages done are shown
  FAILED    no report at all (the run's exit code and its last stderr line)
  ERR>tol   outputs further from the CPU reference than the relative tolerance (1e-4)
Usage:
  gpu_summary.py record RUNS.jsonl key=value...   make a record, append it, print its row:
      keys step, model, batch, strategy, exit, seconds, and run=FILE, simulate=FILE, stderr=FILE
      (files that are missing or not JSON become null; stderr keeps its last 2000 characters)
  gpu_summary.py header                 the table's units and header
  gpu_summary.py row RECORD.json        one row (header first with --header)
  gpu_summary.py table RUNS.jsonl       the whole table
  gpu_summary.py torch RUNS.jsonl TORCH.json   Weft's sequential eager/graph beside PyTorch's
Always exits 0 unless called wrongly (exit 2).
"""
import json
import math
import sys

REL_TOLERANCE = 1e-4

HEADER = (f"{'model':<14}{'b':>3} {'strategy':<16}{'seq eager':>10}{'seq graph':>10}{'sch eager':>10}{'sch graph':>10}"
          f"{'vs graph':>9}{'pred':>7}{'calib':>7}{'abs err':>9}{'rel err':>9}  status")
UNITS = "(ms: median iteration; vs graph: sequential graph / schedule graph; pred: the h200 preset's prediction;" \
        " calib: the preset given the run's own sequential node times; errors: outputs vs the CPU reference)"


def num(d, key):
    """d[key] as a finite float, else None (missing, null, NaN, not a number, d not a dict)."""
    if not isinstance(d, dict):
        return None
    v = d.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def ms(v):
    return "-" if v is None else f"{v:.3f}"


def times(v):
    return "-" if v is None else f"{v:.2f}x"


def sci(v):
    return "-" if v is None else f"{v:.1e}"


def last_line(text):
    lines = [l.strip() for l in str(text or "").splitlines() if l.strip()]
    return lines[-1] if lines else ""


def status_of(rec, run):
    """The row's verdict and the reason, from the record and its run report."""
    if not isinstance(run, dict):
        rc = rec.get("exit")
        why = last_line(rec.get("stderr_tail")) or ("timed out" if rc == 124 else f"no report (exit {rc})")
        return "FAILED", f"exit {rc}: {why}"
    if run.get("blocking_rerun") or run.get("valid") is False:
        fault = run.get("fault") or {}
        where = fault.get("stage") if isinstance(fault, dict) else None
        what = (fault.get("message") if isinstance(fault, dict) else str(fault)) or last_line(rec.get("stderr_tail"))
        return "INVALID", ("blocking rerun after a kernel fault" + (f" in '{where}'" if where else "") +
                           (f": {what}" if what else ""))
    if run.get("failed_stage"):
        return "PARTIAL", f"'{run.get('failed_stage')}' failed: {run.get('error', '?')}"
    tested = run.get("test_data")
    if isinstance(tested, dict) and tested.get("passed") is False:
        return "ORT-MISMATCH", "outputs differ from ONNX Runtime's (weft run --test-data; gpu-check.log)"
    rel = num(run, "max_rel_error_vs_cpu")
    if rel is not None and rel > REL_TOLERANCE:
        return f"ERR>{REL_TOLERANCE:g}", f"relative error {rel:.2e} against the CPU"
    if rec.get("exit") not in (0, None):
        return "FAILED", f"exit {rec.get('exit')}: {last_line(rec.get('stderr_tail'))}"
    if run.get("max_rel_error_vs_cpu", 0) is None:
        return "ERR", "outputs not comparable with the CPU (missing output, shape or NaN)"
    return "ok", ""


def ort_error(run):
    """The largest error of the GPU's scheduled outputs against ONNX Runtime's, on the output's
    scale (weft run --test-data's max_scaled_error), or None without test data."""
    if not isinstance(run, dict) or not isinstance(run.get("test_data"), dict):
        return None
    worst = None
    for s in run["test_data"].get("sets") or []:
        for c in (s.get("outputs") or []) if isinstance(s, dict) else []:
            if isinstance(c, dict) and str(c.get("run", "")).startswith("cuda"):
                e = num(c, "max_scaled_error")
                if e is not None:
                    worst = e if worst is None else max(worst, e)
    return worst


def format_row(rec):
    """One summary line for a record; never raises."""
    try:
        if not isinstance(rec, dict):
            raise ValueError("record is not a JSON object")
        run, sim = rec.get("run"), rec.get("simulate")
        model = str(rec.get("model", "?"))
        batch = rec.get("batch", "?")
        strategy = str(rec.get("strategy", "?"))
        if isinstance(run, dict) and run.get("streams") is not None:
            strategy += f"/{run.get('streams')}"
        status, why = status_of(rec, run)
        predicted = num(sim, "speedup_vs_graph")
        if rec.get("step") == "merge":  # merged against the unmerged sequential graph
            predicted = num(sim.get("merge") if isinstance(sim, dict) else None, "speedup_vs_unmerged_graph")
        if status == "INVALID":
            # The rerun's times were taken with every launch synchronised: none of them is shown.
            cells = ["-"] * 4 + ["INVALID", times(predicted), "-", "-", "-"]
        else:
            r = run if isinstance(run, dict) else {}
            cells = [ms(num(r, "sequential_ms")), ms(num(r, "sequential_graph_ms")), ms(num(r, "schedule_ms")),
                     ms(num(r, "schedule_graph_ms")), times(num(r, "speedup_vs_graph")), times(predicted),
                     times(num(r, "predicted_speedup_vs_graph")), sci(num(r, "max_abs_error_vs_cpu")),
                     sci(num(r, "max_rel_error_vs_cpu"))]
        line = (f"{model:<14}{str(batch):>3} {strategy:<16}{cells[0]:>10}{cells[1]:>10}{cells[2]:>10}{cells[3]:>10}"
                f"{cells[4]:>9}{cells[5]:>7}{cells[6]:>7}{cells[7]:>9}{cells[8]:>9}  {status}")
        if why:
            line += f": {why[:300]}"
        ort = ort_error(run)
        if ort is not None:
            line += f"\n{' ' * 19}vs ONNX Runtime (test data): largest error {ort:.1e} of the output's scale"
        extra = run.get("merged_paths") if isinstance(run, dict) else None
        if isinstance(extra, dict) and extra:
            line += "\n" + " " * 19 + "merged nodes ran as: " + ", ".join(f"{c} {p}" for p, c in extra.items())
        return line
    except Exception as e:  # noqa: BLE001 - one bad record must not lose the table
        name = rec.get("model", "?") if isinstance(rec, dict) else "?"
        return f"{str(name):<14} row unreadable: {e!r}"


def read_records(path):
    """(line number, record or None, error) for each non-empty line."""
    out = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for i, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    out.append((i, json.loads(line), None))
                except Exception as e:  # noqa: BLE001
                    out.append((i, None, e))
    except OSError as e:
        print(f"gpu_summary: cannot read {path}: {e}")
    return out


STEP_TITLES = {
    "smoke": "smoke test",
    "table": "headline: sequential eager, sequential CUDA Graph and the advised schedule replayed as a graph",
    "merge": "merged launches against the unmerged sequential CUDA Graph",
    "split": "micro-batch split against the unsplit sequential CUDA Graph",
}


def table(path):
    records = read_records(path)
    steps = []
    for _, rec, _ in records:
        step = rec.get("step", "?") if isinstance(rec, dict) else "?"
        if step not in steps:
            steps.append(step)
    for step in steps:
        print(f"\n{STEP_TITLES.get(step, step)} {UNITS}")
        print(HEADER)
        for _, rec, _ in records:
            if isinstance(rec, dict) and rec.get("step", "?") == step:
                print(format_row(rec))
    bad = [(i, e) for i, rec, e in records if rec is None]
    for i, e in bad:
        print(f"line {i} of {path}: not a JSON record ({e})")
    counts = {}
    for _, rec, _ in records:
        if isinstance(rec, dict):
            s = status_of(rec, rec.get("run"))[0]
            counts[s] = counts.get(s, 0) + 1
    print("\nrows: " + (", ".join(f"{c} {s}" for s, c in sorted(counts.items())) or "none") +
          (f"; {len(bad)} unreadable lines" if bad else ""))


def torch_beside(runs_path, torch_path):
    """Weft's sequential eager and CUDA Graph beside PyTorch's, per architecture at batch 1."""
    try:
        with open(torch_path, encoding="utf-8") as f:
            torch = json.load(f)
    except Exception as e:  # noqa: BLE001
        print(f"PyTorch beside Weft: no torch results ({e!r})")
        return
    rows = torch.get("rows", []) if isinstance(torch, dict) else []
    weft = {}
    for _, rec, _ in read_records(runs_path):
        if isinstance(rec, dict) and rec.get("step") == "table" and isinstance(rec.get("run"), dict):
            run = rec["run"]
            if not run.get("blocking_rerun") and run.get("valid") is not False:
                weft[(rec.get("model"), rec.get("batch"))] = run
    print(f"\n{'model':<14}{'b':>3}{'torch eager':>12}{'torch graph':>12}{'weft eager':>11}{'weft graph':>11}{'weft/torch graph':>17}")
    for t in rows:
        try:
            key = (t.get("model"), t.get("batch"))
            w = weft.get(key, {})
            tg, wg = num(t, "graph_ms"), num(w, "sequential_graph_ms")
            ratio = f"{wg / tg:.2f}x" if tg and wg else "-"
            print(f"{str(key[0]):<14}{str(key[1]):>3}{ms(num(t, 'eager_ms')):>12}{ms(tg):>12}{ms(num(w, 'sequential_ms')):>11}"
                  f"{ms(wg):>11}{ratio:>17}")
        except Exception as e:  # noqa: BLE001
            print(f"torch row unreadable: {e!r}")
    for e in torch.get("errors", []) if isinstance(torch, dict) else []:
        print(f"torch: {e}")


def make_record(pairs):
    """A record from key=value arguments (see the usage); never raises."""
    rec = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        try:
            if key in ("run", "simulate"):
                try:
                    with open(value, encoding="utf-8", errors="replace") as f:
                        rec[key] = json.load(f)
                except Exception:  # noqa: BLE001 - no report: the row says FAILED
                    rec[key] = None
            elif key == "stderr":
                try:
                    with open(value, encoding="utf-8", errors="replace") as f:
                        rec["stderr_tail"] = f.read()[-2000:]
                except OSError:
                    rec["stderr_tail"] = ""
            elif key in ("batch", "exit"):
                rec[key] = int(value)
            elif key == "seconds":
                rec[key] = float(value)
            else:
                rec[key] = value
        except ValueError:
            rec[key] = value
    return rec


def main(argv):
    if len(argv) >= 3 and argv[1] == "row":
        if "--header" in argv:
            print(HEADER)
        try:
            with open(argv[2], encoding="utf-8", errors="replace") as f:
                rec = json.load(f)
        except Exception as e:  # noqa: BLE001
            rec = {"model": argv[2], "run": None, "stderr_tail": f"record unreadable: {e!r}"}
        print(format_row(rec))
        return 0
    if len(argv) == 2 and argv[1] == "header":
        print(UNITS)
        print(HEADER)
        return 0
    if len(argv) == 3 and argv[1] == "table":
        table(argv[2])
        return 0
    if len(argv) == 4 and argv[1] == "torch":
        torch_beside(argv[2], argv[3])
        return 0
    if len(argv) >= 3 and argv[1] == "record":
        rec = make_record(argv[3:])
        try:
            with open(argv[2], "a", encoding="utf-8") as f:
                f.write(json.dumps(rec) + "\n")
        except OSError as e:
            print(f"gpu_summary: cannot append to {argv[2]}: {e}")
        print(format_row(rec))
        return 0
    print("usage: gpu_summary.py row RECORD.json [--header] | table RUNS.jsonl | torch RUNS.jsonl TORCH.json", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
