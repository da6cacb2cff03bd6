"""The Python module `weft` on real models: loading, analysis, schedules, plans, simulation, CPU runs,
exports, errors as exceptions, and the GIL released during long calls."""
import json
import os
import threading
import time
import unittest

import numpy as np

import weft

DATA = os.environ.get("WEFT_TEST_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "data"))
GOOGLENET = os.path.join(DATA, "models", "googlenet.onnx")
SQUEEZENET = os.path.join(DATA, "models", "squeezenet1_1.onnx")
SHUFFLENET = os.path.join(DATA, "models", "shufflenet_v2_x1_0.onnx")
GROUPED_MLP = os.path.join(DATA, "models", "grouped_mlp.onnx")
RANDWIRE = os.path.join(DATA, "models", "randwire_ws.onnx")
VAD_IF = os.path.join(DATA, "models", "vad_if.onnx")


class LoadTest(unittest.TestCase):
    """A model loads from a path or from bytes into the same graph; bad input raises with the kind."""

    def test_path_and_bytes_give_the_same_graph(self):
        a = weft.load(GOOGLENET)
        with open(GOOGLENET, "rb") as f:
            b = weft.load(f.read(), name="googlenet-in-memory.onnx")
        self.assertEqual(a.node_count, b.node_count)
        self.assertEqual(a.sha256, b.sha256)
        self.assertEqual(a.nodes, b.nodes)
        self.assertEqual(b.path, "googlenet-in-memory.onnx")
        self.assertGreater(a.node_count, 50)
        self.assertEqual(len(a.ops), a.node_count)

    def test_missing_file_is_invalid_input(self):
        with self.assertRaises(weft.InvalidInputError) as caught:
            weft.load("/nonexistent/model.onnx")
        e = caught.exception
        self.assertIsInstance(e, weft.Error)
        self.assertIsInstance(e, ValueError)
        self.assertEqual(e.kind, "invalid-input")
        self.assertIn("/nonexistent/model.onnx", e.message)

    def test_garbage_bytes_are_invalid_input(self):
        with self.assertRaises(weft.InvalidInputError) as caught:
            weft.load(b"this is not a protobuf", name="junk.onnx")
        self.assertIn("junk.onnx", str(caught.exception))

    def test_unknown_device_names_the_known_ones(self):
        with self.assertRaises(weft.Error) as caught:
            weft.load(GOOGLENET, device="no-such-gpu")
        self.assertEqual(caught.exception.kind, "invalid-input")
        self.assertIn("h100-sxm", caught.exception.message)

    def test_profile_replaces_predicted_times(self):
        # A measured profile's node times replace the predictions, as weft --profile does.
        profile = os.path.join(DATA, "profiles", "squeezenet1_1.ort-all.json")
        predicted = weft.load(SQUEEZENET)
        measured = weft.load(SQUEEZENET, profile=profile)
        self.assertIsNone(predicted.measured_from)
        self.assertIn(profile, measured.measured_from)
        self.assertIn("ONNX Runtime CPU EP", measured.measured_from)
        self.assertFalse(np.allclose(predicted.node_time_us, measured.node_time_us))
        with self.assertRaises(weft.InvalidInputError) as caught:
            weft.load(GOOGLENET, profile=profile)
        self.assertIn("a profile of another model", caught.exception.message)

    def test_dims_bind_symbols(self):
        unbound = weft.load(GROUPED_MLP)
        self.assertTrue(unbound.unresolved_dims)
        bound = weft.load(GROUPED_MLP, dims={"batch": 4})
        self.assertEqual(bound.unresolved_dims, [])
        with self.assertRaises(weft.UsageError):
            weft.load(GROUPED_MLP, dims={"batch": 0})
        self.assertEqual(bound.warnings, [])
        extra = weft.load(GROUPED_MLP, dims={"batch": 4, "nosuch": 3})
        self.assertTrue(any("--dim nosuch=3 matches no symbolic dimension" in w for w in extra.warnings), extra.warnings)
        kept = weft.load(SHUFFLENET, batch=8)  # fixes its batch in a Reshape: the output keeps 1
        self.assertTrue(any("output 'output' has 1 at dim 0, not 8" in w for w in kept.warnings), kept.warnings)

    def test_module_facts(self):
        features = weft.features()
        self.assertEqual(features["version"], weft.__version__)
        self.assertIn("cuda_module", features)
        self.assertIn("h100-sxm", weft.devices())
        names = [s["name"] for s in weft.strategies()]
        for n in ("sequential", "chains", "cp-list", "search"):
            self.assertIn(n, names)
        self.assertTrue(weft.planners())


class AnalyzeTest(unittest.TestCase):
    """analyze() gives levels that respect every edge, a true critical path and a width with its antichain."""

    @classmethod
    def setUpClass(cls):
        cls.model = weft.load(GOOGLENET)
        cls.a = cls.model.analyze()

    def test_levels_respect_every_edge(self):
        a, edges = self.a, self.model.edges
        self.assertEqual(a.asap.dtype, np.int32)
        self.assertEqual(edges.shape[1], 2)
        self.assertTrue(np.all(a.asap[edges[:, 1]] > a.asap[edges[:, 0]]))
        self.assertTrue(np.all(a.alap[edges[:, 1]] > a.alap[edges[:, 0]]))
        self.assertTrue(np.array_equal(a.slack, a.alap - a.asap))
        self.assertEqual(int(a.level_widths.sum()), self.model.node_count)
        self.assertEqual(len(a.level_widths), a.depth)

    def test_critical_path_is_a_path_with_the_span(self):
        ids = self.a.critical_path_ids
        edge_set = {(int(u), int(v)) for u, v in self.model.edges}
        for u, v in zip(ids[:-1], ids[1:]):
            self.assertIn((int(u), int(v)), edge_set)
        times = self.model.node_time_us
        self.assertAlmostEqual(float(times[ids].sum()), self.a.span_us, places=6)
        self.assertAlmostEqual(float(times.sum()), self.a.work_us, places=6)
        self.assertGreater(self.a.parallelism, 1.0)
        self.assertEqual(self.a.critical_path, [self.model.nodes[i] for i in ids])

    def test_width_is_an_antichain(self):
        a = self.a
        self.assertEqual(a.width, len(a.antichain))
        self.assertGreaterEqual(a.width, 2)
        self.assertGreaterEqual(a.width, 1)
        self.assertTrue(a.verdict)


class ScheduleTest(unittest.TestCase):
    """Every strategy, imports from dict and JSON, Python strategies and edits give valid schedules."""

    @classmethod
    def setUpClass(cls):
        cls.model = weft.load(GOOGLENET)

    def assert_places_every_node_once(self, s):
        placed = sorted(k for stream in s.streams for k in stream)
        self.assertEqual(placed, sorted(self.model.nodes))

    def test_every_strategy(self):
        for info in weft.strategies():
            name = info["name"]
            with self.subTest(strategy=name):
                options = {"evaluations": 20, "seed": 3} if name == "search" else {}
                s = self.model.schedule(name, max_streams=4, **options)
                self.assert_places_every_node_once(s)
                self.assertLessEqual(s.stream_count, 4 if name != "seed-greedy" else s.stream_count)
                self.assertIsNone(self.model.validate(s))

    def test_bad_strategy_and_cap(self):
        with self.assertRaises(weft.InvalidInputError) as caught:
            self.model.schedule("no-such-strategy")
        self.assertIn("cp-list", caught.exception.message)
        with self.assertRaises(weft.Error):
            self.model.schedule("chains", max_streams=0)

    def test_dict_and_json_round_trip(self):
        s = self.model.schedule("chains", cuda_graph=True)
        d = s.to_dict()
        self.assertEqual(d["format"], "weft-schedule")
        again = self.model.schedule(d)
        self.assertEqual(again.streams, s.streams)
        self.assertEqual(again.events, s.events)
        from_text = self.model.schedule(s.to_json())
        self.assertEqual(from_text.streams, s.streams)
        # Events, format and version may be left out: the minimal events are computed.
        bare = self.model.schedule({"streams": d["streams"]})
        self.assertEqual(sorted(bare.events), sorted(s.events))

    def test_invalid_schedules_are_refused_with_the_reason(self):
        d = self.model.schedule("chains").to_dict()
        missing = {"streams": [d["streams"][0][:-1]] + d["streams"][1:]}
        with self.assertRaises(weft.InvalidInputError) as caught:
            self.model.validate(missing)
        self.assertIn("on no stream", caught.exception.message)
        # The reverse of a topological order on one stream deadlocks.
        backwards = {"streams": [list(reversed(self.model.reference().streams[0]))]}
        with self.assertRaises(weft.InvalidInputError) as caught:
            self.model.validate(backwards)
        self.assertIn("deadlock", caught.exception.message)
        with self.assertRaises(weft.InvalidInputError):
            self.model.schedule("{not json")

    def test_python_strategy_speaks_the_external_protocol(self):
        seen = {}

        def one_stream(inp):
            seen.update(inp)
            return {"strategy": "topo", "streams": [[inp["nodes"][i]["key"] for i in inp["topo_order"]]]}

        s = self.model.schedule_with(one_stream)
        self.assertEqual(seen["format"], "weft-strategy-input")
        self.assertEqual(len(seen["nodes"]), self.model.node_count)
        self.assertEqual(self.model.strategy_input()["format"], "weft-strategy-input")
        self.assertEqual(s.stream_count, 1)
        self.assertEqual(s.events, [])
        with self.assertRaises(weft.InvalidInputError):
            self.model.schedule_with(lambda inp: {"streams": [["no-such-node"]]})

    def test_edits_return_new_schedules(self):
        s = self.model.reference()
        wider = s.add_stream()
        self.assertEqual(s.stream_count, 1)
        self.assertEqual(wider.stream_count, 2)
        # The last node moved alone to the new stream: still valid, one event more.
        last = s.streams[0][-1]
        moved = wider.move(last, 1, 0)
        self.assertEqual(moved.streams[1], [last])
        self.assertIsNone(self.model.validate(moved))
        self.assertGreaterEqual(len(moved.events), 1)
        merged = moved.merge_streams(0, 1)
        self.assertEqual(merged.stream_count, 1)
        with self.assertRaises(weft.Error):
            wider.move("no-such-node", 1, 0)


class PlanSimulateRunTest(unittest.TestCase):
    """plan, simulate and run agree with their definitions: bounds hold, timelines are consistent."""

    @classmethod
    def setUpClass(cls):
        cls.model = weft.load(GOOGLENET)
        cls.schedule = cls.model.schedule("cp-list", cuda_graph=True)

    def test_plan_respects_its_bounds(self):
        p = self.model.plan(self.schedule)
        self.assertGreaterEqual(p.arena_bytes, p.concurrent_bound_bytes)
        self.assertLessEqual(p.arena_bytes, p.no_reuse_bytes)
        self.assertGreaterEqual(p.reference_arena_bytes, p.linear_bound_bytes)
        self.assertAlmostEqual(p.price_of_concurrency, p.arena_bytes / p.reference_arena_bytes)
        self.assertEqual(len(p.offsets), self.model.tensor_count)
        planned = p.sizes > 0
        self.assertTrue(np.all(p.offsets[planned] + p.sizes[planned] <= p.arena_bytes))
        self.assertIn(p.planner, p.planners)
        self.assertEqual(min(p.planners.values()), p.arena_bytes)
        with self.assertRaises(weft.InvalidInputError):
            self.model.plan(self.schedule, planner="no-such-planner")

    def test_repair_keeps_offsets_and_moves_the_clashes(self):
        # The sequential reference's plan repaired for cp-list: some tensors move, the others keep
        # their offsets, and no two tensors that may be live at once share bytes (the repaired
        # plan is the same as repairing it again: nothing left to move).
        seq = self.model.plan(self.model.reference())
        fixed = self.model.repair(seq, self.schedule)
        self.assertEqual(fixed.planner, "repaired")
        self.assertGreater(fixed.moved, 0)
        self.assertIsNone(seq.moved)
        planned = fixed.sizes > 0
        changed = int(np.count_nonzero(fixed.offsets[planned] != seq.offsets[planned]))
        self.assertGreater(changed, 0)
        self.assertLessEqual(changed, fixed.moved)
        self.assertGreaterEqual(fixed.arena_bytes, fixed.concurrent_bound_bytes)
        again = self.model.repair(fixed, self.schedule)
        self.assertEqual(again.moved, 0)
        self.assertTrue(np.array_equal(again.offsets, fixed.offsets))
        other = weft.load(GOOGLENET)
        with self.assertRaises(weft.InvalidInputError):
            other.repair(seq, self.schedule)

    def test_simulate_gives_a_consistent_timeline(self):
        pred = self.model.simulate(self.schedule, graph=True)
        t = pred.timeline
        self.assertEqual(pred.mode, "graph")
        self.assertEqual(len(t.node), self.model.node_count)
        self.assertEqual(sorted(t.node.tolist()), list(range(self.model.node_count)))
        self.assertTrue(np.all(t.end_us >= t.start_us))
        self.assertAlmostEqual(t.makespan_us, float(t.end_us.max() - t.start_us.min()), places=6)
        self.assertAlmostEqual(pred.makespan_us, t.makespan_us, places=6)
        self.assertAlmostEqual(pred.speedup, pred.sequential_graph_us / pred.makespan_us, places=9)
        self.assertEqual(pred.sequential_graph.kind, "sequential-graph")
        self.assertEqual(pred.sequential_graph.strategy, "sequential")
        self.assertEqual(t.strategy, self.schedule.strategy)
        self.assertEqual(t.backend, "")
        # The stream of each item is the stream the schedule put its node on.
        stream_of = {n: i for i, ids in enumerate(self.schedule.stream_ids) for n in ids.tolist()}
        self.assertTrue(all(stream_of[n] == s for n, s in zip(t.node.tolist(), t.stream.tolist())))
        trace = json.loads(self.model.chrome_trace([pred.timeline, pred.sequential_graph]))
        self.assertIn("traceEvents", trace)
        self.assertEqual(json.loads(t.to_json())["format"], "weft-timeline")

    def test_run_on_the_cpu(self):
        model = weft.load(SQUEEZENET)
        run = model.run(model.schedule("chains"), iterations=1, warmup=0)
        self.assertTrue(run.identical)
        self.assertEqual(run.max_abs_diff, 0.0)
        self.assertGreater(run.scheduled_ms, 0)
        self.assertAlmostEqual(run.speedup, run.sequential_ms / run.scheduled_ms)
        self.assertEqual(len(run.timeline.node), model.node_count)
        self.assertEqual(run.timeline.kind, "measured")
        self.assertEqual(run.timeline.backend, "cpu")
        self.assertEqual(run.timeline.strategy, "chains")
        self.assertEqual(run.sequential_timeline.strategy, "sequential")
        self.assertEqual(run.rounds, 1)  # one iteration: one round
        # The calibrated CPU device's prediction, as weft run --backend cpu reports it.
        self.assertGreater(run.predicted_speedup, 0)
        self.assertLessEqual(run.predicted_speedup, run.cpu_cores + 1e-9)
        self.assertGreater(run.predicted_speedup_fitted, 0)
        self.assertAlmostEqual(run.prediction_error, abs(run.predicted_speedup - run.speedup) / run.speedup)
        reference = model.run(model.reference(), iterations=1, warmup=0)
        self.assertEqual(reference.predicted_speedup, 1.0)
        alternated = model.run(model.schedule("chains"), iterations=4, warmup=0, rounds=2)
        self.assertEqual(alternated.rounds, 2)
        self.assertEqual(len(alternated.iteration_ms), 4)
        self.assertEqual(len(alternated.sequential_iteration_ms), 4)
        self.assertEqual(alternated.sequential_ms, sorted(alternated.sequential_iteration_ms)[2])
        (name, out), = run.outputs.items()
        self.assertEqual(out.dtype, np.float32)
        self.assertEqual(out.shape, (1, 1000))
        self.assertTrue(np.all(np.isfinite(out)))
        with self.assertRaises(weft.UsageError):
            model.run(model.reference(), backend="tpu")
        with self.assertRaises(weft.UsageError):
            model.run(model.reference(), rounds=0)
        with self.assertRaises(weft.UsageError):
            model.run(model.reference(), graph=True)

    def test_cpu_run_schedules_for_the_cpu(self):
        # A strategy's schedule runs on the CPU made for the CPU calibrated from a short sequential
        # run (as weft run --backend cpu), by name or as Model.schedule made it; a device named at
        # load, a hand-made schedule and the reference run as given.
        model = weft.load(RANDWIRE, dims={"batch": 1})
        by_name = model.run("cp-list", max_streams=2, iterations=1, warmup=0)
        self.assertEqual(by_name.streams, 2)
        self.assertIn("calibrated from a sequential run", by_name.schedule_made_for)
        self.assertEqual(by_name.timeline.strategy, "cp-list")
        made = model.run(model.schedule("cp-list", max_streams=2), iterations=1, warmup=0)
        self.assertIn("calibrated from a sequential run", made.schedule_made_for)
        self.assertTrue(made.schedule.options.startswith("streams=2 granularity_us="), made.schedule.options)
        given = model.run(model.reference(), iterations=1, warmup=0)
        self.assertEqual(given.schedule_made_for, "the schedule given")
        named = weft.load(RANDWIRE, dims={"batch": 1}, device="h100-sxm")
        self.assertEqual(named.run("cp-list", max_streams=2, iterations=1, warmup=0).schedule_made_for, "h100-sxm")
        with self.assertRaises(weft.InvalidInputError):
            model.run("no-such-strategy")

    def test_run_with_threads_and_hybrid_teams(self):
        # threads_per_stream= and hybrid= as weft run's --threads-per-stream and --hybrid: squeezenet's
        # schedule made for the CPU on 2 streams runs its alone nodes on a team of every core, outputs
        # bit for bit the reference's with the same teams; the Run says both; bad values raise.
        model = weft.load(SQUEEZENET)
        plain = model.run("cp-list", iterations=1, warmup=0)
        self.assertEqual(plain.threads_per_stream, 1)
        self.assertEqual(plain.hybrid_nodes, 0)
        self.assertEqual(plain.hybrid_threads, 0)
        cpus = len(os.sched_getaffinity(0))
        if cpus >= 2:
            hybrid = model.run("cp-list", iterations=1, warmup=0, hybrid=True)
            self.assertTrue(hybrid.identical)
            self.assertGreater(hybrid.hybrid_nodes, 0)
            self.assertEqual(hybrid.hybrid_threads, min(hybrid.streams, cpus))
            teams = model.run(model.reference(), iterations=1, warmup=0, threads_per_stream=2)
            self.assertEqual(teams.threads_per_stream, 2)
            self.assertEqual(teams.hybrid_nodes, 0)
        for bad in (dict(threads_per_stream=0), dict(threads_per_stream=cpus + 1), dict(backend="cuda", hybrid=True),
                    dict(backend="cuda", threads_per_stream=1)):
            with self.assertRaises(weft.UsageError, msg=str(bad)):
                model.run(model.reference(), **bad)

    def test_run_without_a_prediction(self):
        # A top-level If holds the network: too few operators to fit a device; the run still reports.
        model = weft.load(VAD_IF, dims={"batch": 1})
        run = model.run("cp-list", iterations=1, warmup=0)
        self.assertTrue(run.identical)
        self.assertIsNone(run.predicted_speedup)
        self.assertIn("(3 needed)", run.prediction_unavailable)
        self.assertIsNone(model.run("cp-list", iterations=1, warmup=0, backend="cpu").predicted_speedup)

    def test_run_on_given_inputs(self):
        """inputs={name: array} runs on those values (the same values give the same outputs, other
        values others); a wrong dtype or an unknown name raises naming the input; extras warn."""
        import warnings
        model = weft.load(SQUEEZENET)
        folder = os.path.join(DATA, "test_data", "squeezenet1_1", "test_data_set_0")
        x = np.random.default_rng(3).uniform(-1, 1, size=(1, 3, 224, 224)).astype(np.float32)
        run = model.run(model.reference(), iterations=1, warmup=0, inputs={"input": x})
        got = run.outputs["output"]
        again = model.run(model.schedule("chains"), iterations=1, warmup=0, inputs={"input": np.asfortranarray(x)})
        np.testing.assert_array_equal(again.outputs["output"], got)
        seeded = model.run(model.reference(), iterations=1, warmup=0)
        self.assertFalse(np.array_equal(seeded.outputs["output"], got))
        with self.assertRaises(weft.InvalidInputError) as caught:
            model.run(model.reference(), iterations=1, warmup=0, inputs={"input": x.astype(np.float64)})
        self.assertIn("input 'input' (inputs['input']): given float64 1x3x224x224, the model expects float32 1x3x224x224",
                      caught.exception.message)
        with self.assertRaises(weft.InvalidInputError) as caught:
            model.run(model.reference(), iterations=1, warmup=0, inputs={"image": x})
        self.assertIn("no value for input 'input'", caught.exception.message)
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            model.run(model.reference(), iterations=1, warmup=0, inputs={"input": x, "extra": x})
        self.assertTrue(any("ignored 'extra'" in str(w.message) for w in said))
        with self.assertRaises(weft.UsageError):
            model.run(model.reference(), inputs={"input": x}, test_data=folder)

    def test_run_on_test_data(self):
        """test_data= checks every output against ONNX Runtime's (the committed set) as weft run
        --test-data does; a zero tolerance fails."""
        model = weft.load(SQUEEZENET)
        folder = os.path.join(DATA, "test_data", "squeezenet1_1")
        run = model.run(model.schedule("chains"), iterations=1, warmup=0, test_data=folder)
        report = run.test_data
        self.assertTrue(report["passed"])
        self.assertEqual(report["rtol"], 1e-4)
        runs = {o["run"]: o for o in report["sets"][0]["outputs"]}
        self.assertEqual(set(runs), {"scheduled", "sequential"})
        self.assertLess(runs["scheduled"]["max_scaled_error"], 1e-5)
        strict = model.run(model.reference(), iterations=1, warmup=0, test_data=folder, rtol=0, atol=0)
        self.assertFalse(strict.test_data["passed"])
        self.assertIsNone(model.run(model.reference(), iterations=1, warmup=0).test_data)

    def test_run_on_cuda_or_a_runtime_failure(self):
        model = weft.load(SQUEEZENET)
        try:
            gpus = weft.gpus()
        except weft.RuntimeFailure as e:
            gpus = []
            self.assertEqual(e.kind, "runtime")
        if not gpus:
            # No GPU here: the CUDA run fails as a runtime error that says what is missing.
            with self.assertRaises(weft.RuntimeFailure) as caught:
                model.run(model.schedule("chains"), backend="cuda", iterations=1, warmup=0)
            self.assertIsInstance(caught.exception, RuntimeError)
            self.assertTrue(caught.exception.message)
            return
        run = model.run(model.schedule("chains"), backend="cuda", iterations=1, warmup=0)
        self.assertLess(run.max_abs_diff, 1e-3)

    def test_launch_costs_on_a_gpu_or_a_runtime_failure(self):
        with self.assertRaises(weft.InvalidInputError):
            weft.launch_costs(kernels=3)
        try:
            c = weft.launch_costs(kernels=100)
        except weft.RuntimeFailure as e:
            self.assertTrue("no CUDA device" in str(e) or "libweft_cuda.so" in str(e), str(e))
            return
        self.assertEqual(c["kernels"], 100)
        for key in ("launch_us", "graph_chain_us", "graph_per_node_us", "event_record_us", "event_wait_us"):
            self.assertGreater(c[key], 0.0)

    def test_schedules_of_another_model_are_refused(self):
        other = weft.load(SQUEEZENET)
        with self.assertRaises(weft.UsageError):
            self.model.plan(other.reference())


class AdviceTest(unittest.TestCase):
    """advise() gives weft analyze's line with its evidence, and its best configuration predicts what it says."""

    def test_best_configuration_predicts_the_quoted_speedup(self):
        model = weft.load(os.path.join(DATA, "models", "randwire_ws.onnx"))
        a = model.advise()
        # Its batch is left symbolic: every cost is a launch-only guess, and the line says so.
        self.assertEqual(a.unknown_costs, 144)
        self.assertIn("caution: 144 of 144 operators have unknown cost", a.line)
        self.assertEqual(a.kind, "concurrency")
        self.assertIn(a.best_strategy, [s["name"] for s in weft.strategies()])
        self.assertEqual(a.best_mode, "graph")
        self.assertTrue(a.launch_bound)
        self.assertIn("%s on %d streams (graph) predicts %.2fx" % (a.best_strategy, a.best_streams, a.best_speedup), a.line)
        s = a.schedule()
        self.assertEqual(s.strategy, a.best_strategy)
        self.assertEqual(s.stream_count, a.best_streams)
        pred = model.simulate(s, graph=a.best_mode == "graph")
        self.assertAlmostEqual(pred.speedup_vs_graph, a.best_speedup, places=9)
        # A stream cap is honoured, as weft analyze's strategies are.
        two = model.advise(max_streams=2)
        self.assertLessEqual(two.best_streams, 2)
        self.assertLess(two.best_speedup, a.best_speedup)

    def test_chain_at_batch_eight_names_the_split(self):
        # resnet50 exported at batch 1, re-batched as weft --batch 8: little to gain from streams,
        # a micro-batch split predicted to pay (docs/performance.md).
        a = weft.load(os.path.join(DATA, "models", "resnet50.onnx"), batch=8).advise()
        self.assertEqual(a.kind, "little-to-gain")
        self.assertGreater(a.split_k, 1)
        self.assertGreater(a.split_speedup, 1.15)
        self.assertIn("split-overlap k=%d predicts %.2fx" % (a.split_k, a.split_speedup), a.line)
        self.assertIn("at batch 8", a.line)
        with self.assertRaises(weft.UsageError):
            weft.load(GOOGLENET, batch=0)


class SplitMergeTest(unittest.TestCase):
    """split() and merge() make the models weft --split and --merge make; their predictions quote the
    original model's sequential runs; saved schedules reopen on them with open_schedule()."""

    def test_split_as_advised(self):
        m = weft.load(os.path.join(DATA, "models", "resnet50.onnx"), batch=8)
        a = m.advise()
        s = m.split("auto", graph=True)
        self.assertEqual(s.micro_batches, a.split_k)
        self.assertEqual(s.node_count, a.split_k * m.node_count)
        self.assertIn("k=%d" % a.split_k, s.split_summary)
        self.assertIsNone(m.split_summary)
        self.assertEqual(m.micro_batches, 1)
        pred = s.simulate(s.schedule("split-overlap", cuda_graph=True), graph=True)
        # The split's gain is quoted over the unsplit model's sequential graph, as the advice's is.
        self.assertAlmostEqual(pred.speedup_vs_unsplit, a.split_speedup, places=6)
        self.assertAlmostEqual(pred.speedup_vs_unsplit, s.unsplit_sequential_us["graph"] / pred.makespan_us, places=9)
        self.assertIsNone(m.simulate(m.reference()).speedup_vs_unsplit)
        self.assertEqual(m.split(2).micro_batches, 2)
        with self.assertRaises(weft.UsageError):
            m.split("three")
        with self.assertRaises(weft.UsageError):
            s.split(2)
        # A batch-mixing model is refused with the node and the reason.
        with self.assertRaises(weft.InvalidInputError):
            weft.load(GOOGLENET).split(2)

    def test_merge_by_layering_or_given_groups(self):
        m = weft.load(GROUPED_MLP, dims={"batch": 1}, device="h200")
        mm = m.merge()
        self.assertEqual(len(mm.merges), 12)
        self.assertEqual(mm.node_count, 12)
        self.assertIs(mm.unmerged, m)
        self.assertEqual(sorted(k for g in mm.merges for k in g), sorted(m.nodes))
        pred = mm.simulate(mm.schedule("cp-list", cuda_graph=True), graph=True)
        # 48 launches -> 12 at the kernel floor: the launch ratio (docs/layers.md).
        self.assertAlmostEqual(pred.speedup_vs_unmerged, 4.0, places=6)
        self.assertIsNone(m.simulate(m.reference()).speedup_vs_unmerged)
        half = m.merge(groups=mm.merges[:6])
        self.assertEqual(len(half.merges), 6)
        self.assertEqual(half.node_count, 48 - 6 * 3)
        with self.assertRaises(weft.InvalidInputError) as caught:
            m.merge(groups=[["gemm_g0_l0", "gemm_g0_l1"]])  # one wire's consecutive layers depend
        self.assertIn("must be independent", caught.exception.message)
        with self.assertRaises(weft.UsageError):
            mm.merge()
        # Run on the CPU against the unmerged sequential run: the same outputs, bit for bit.
        r = mm.run(mm.schedule("level-rr"), iterations=1, warmup=0)
        self.assertTrue(r.identical)

    def test_load_fused_runs_like_the_unfused_model(self):
        # weft.load(fuse=True) as weft --fuse: GoogLeNet's 57 Conv+Relu chains as fused nodes,
        # run on the CPU against the unfused sequential run, bit for bit.
        m = weft.load(GOOGLENET, fuse=True)
        self.assertEqual(len(m.fusions), 57)
        self.assertIn(m.fusions[0][0], m.unmerged.nodes)
        self.assertNotIn(m.fusions[0][0], m.nodes)  # the fused node stands for it
        self.assertEqual(m.node_count, m.unmerged.node_count - 57)
        self.assertEqual(m.merges, [])
        self.assertEqual(weft.load(GOOGLENET).fusions, [])
        r = m.run(m.schedule("cp-list"), iterations=1, warmup=0)
        self.assertTrue(r.identical)
        with self.assertRaises(weft.UsageError):
            m.merge()

    def test_advice_names_merging_where_it_beats_streams(self):
        m = weft.load(GROUPED_MLP, dims={"batch": 1}, device="h200")
        a = m.advise()
        self.assertTrue(a.merge_advised)
        self.assertEqual(a.merge_operators, (48, 12))
        self.assertGreater(a.merge_speedup, a.best_speedup)
        self.assertIn("merge equal operators (48 -> 12 launches), then %s" % a.merge_strategy, a.line)
        # The configuration it names predicts what it quotes, against the unmerged baseline.
        self.assertEqual(a.merge_mode, "graph")
        mm = m.merge()
        pred = mm.simulate(mm.schedule(a.merge_strategy, cuda_graph=True), graph=True)
        self.assertAlmostEqual(pred.speedup_vs_unmerged, a.merge_speedup, places=6)
        self.assertEqual(weft.load(GOOGLENET, device="h200").advise().merge_advised, False)

    def test_open_schedule_applies_what_it_records(self):
        m = weft.load(GROUPED_MLP, dims={"batch": 2})
        half = m.merge(groups=m.merge().merges[:6])
        text = half.schedule("level-rr").to_json()
        with self.assertRaises(weft.InvalidInputError):
            m.schedule(text)  # the merges are not applied by schedule()
        opened = m.open_schedule(text)
        self.assertEqual(opened.model.merges, half.merges)
        self.assertEqual(opened.streams, half.schedule("level-rr").streams)
        split = m.split(2)
        text = split.schedule("split-overlap").to_json()
        again = m.open_schedule(text)
        self.assertEqual(again.model.micro_batches, 2)
        self.assertEqual(again.streams, split.schedule("split-overlap").streams)
        self.assertIs(split.open_schedule(text).model, split)  # already split as it records
        with self.assertRaises(weft.InvalidInputError):
            m.open_schedule("/nonexistent/schedule.json")


class LayersSweepTest(unittest.TestCase):
    """layers() and weft.sweep() give what weft layers and weft sweep give."""

    def test_layers_of_the_graph_and_of_a_schedule(self):
        m = weft.load(GROUPED_MLP, dims={"batch": 1})
        l = m.layers()
        self.assertEqual(l["origin"], "graph chains")
        self.assertEqual(l["depth"], l["asap_depth"])  # the seed: m chains of length L give depth L
        self.assertEqual(l["depth"], 12)
        self.assertEqual(l["max_width"], 4)
        self.assertEqual(sorted(k for layer in l["layers"] for k in layer), sorted(m.nodes))
        self.assertEqual((l["launches_before"], l["launches_after"]), (48, 12))
        self.assertEqual(sorted(map(sorted, l["merge_groups"])), sorted(map(sorted, m.merge().merges)))
        # Two streams for four chains: layers over the streams are deeper (each stream a wire).
        two = m.layers(schedule=m.schedule("level-rr", max_streams=2))
        self.assertGreater(two["depth"], l["depth"])
        self.assertEqual(len(two["wires"]), 2)
        wires = {"format": "weft-wires", "version": 1,
                 "wires": [{"name": "all", "nodes": m.nodes}]}
        one = m.layers(wires=wires)
        self.assertEqual(one["depth"], m.node_count)  # one wire: one operator per layer
        with self.assertRaises(weft.InvalidInputError):
            m.layers(wires={"format": "weft-wires", "version": 1, "wires": [{"name": "w", "nodes": ["nope"]}]})
        with self.assertRaises(weft.UsageError):
            m.layers(schedule=m.reference(), wires=wires)

    def test_sweep_predicted_and_measured(self):
        pts = weft.sweep(GROUPED_MLP, [1, 4], strategies=["sequential", "cp-list"], graph=True)
        self.assertEqual([(p["batch"], p["strategy"]) for p in pts], [(1, "sequential"), (1, "cp-list"), (4, "sequential"), (4, "cp-list")])
        for p in pts:
            self.assertEqual(p["mode"], "graph")
            self.assertIsNone(p["measured_speedup"])
        self.assertAlmostEqual(pts[0]["predicted_speedup"], 1.0, places=9)
        # The same point as a model loaded at that batch predicts.
        m = weft.load(GROUPED_MLP, dims={"batch": 4})
        pred = m.simulate(m.schedule("cp-list", cuda_graph=True), graph=True)
        self.assertAlmostEqual(pts[3]["predicted_speedup"], pred.speedup, places=9)
        cpu = weft.sweep(GROUPED_MLP, [2], strategies=["cp-list"], backend="cpu", iterations=1, warmup=0)
        self.assertEqual(cpu[0]["mode"], "cpu")
        self.assertGreater(cpu[0]["measured_speedup"], 0)
        with self.assertRaises(weft.UsageError):
            weft.sweep(GROUPED_MLP, [1], backend="tpu")
        with self.assertRaises(weft.UsageError):
            weft.sweep(GROUPED_MLP, [0])
        self.assertEqual(cpu[0]["hybrid_nodes"], 0)
        # hybrid=True as weft sweep --hybrid: each point's alone nodes on a team of every core.
        if len(os.sched_getaffinity(0)) >= 2:
            hybrid = weft.sweep(SQUEEZENET, [1], strategies=["cp-list"], backend="cpu", iterations=1, warmup=0, hybrid=True)
            self.assertGreater(hybrid[0]["hybrid_nodes"], 0)
            self.assertGreater(hybrid[0]["measured_speedup"], 0)
        for bad in (dict(hybrid=True), dict(backend="cuda", hybrid=True), dict(threads_per_stream=1),
                    dict(backend="cpu", threads_per_stream=0)):
            with self.assertRaises(weft.UsageError, msg=str(bad)):
                weft.sweep(GROUPED_MLP, [1], **bad)
        static = weft.sweep(SQUEEZENET, [1, 2], strategies=["cp-list"])  # a static batch: re-batched
        self.assertEqual([p["batch"] for p in static], [1, 2])
        with self.assertRaises(weft.InvalidInputError):
            weft.sweep(SHUFFLENET, [1, 2])  # its output keeps the exported batch


class GilTest(unittest.TestCase):
    """Long calls release the GIL: another Python thread keeps running while a search schedules."""

    def test_search_lets_other_threads_run(self):
        model = weft.load(GOOGLENET)
        done = threading.Event()

        failure = []

        def work():
            try:
                model.schedule("search", budget_ms=400)
            except Exception as e:  # reported below; the loop must not wait for it forever
                failure.append(e)
            done.set()

        t = threading.Thread(target=work)
        ticks = 0
        start = time.monotonic()
        t.start()
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)
        t.join()
        self.assertEqual(failure, [])
        elapsed = time.monotonic() - start
        self.assertGreater(elapsed, 0.3)
        # With the GIL held for the whole search this loop would run about once.
        self.assertGreater(ticks, 50)


if __name__ == "__main__":
    unittest.main()
