// Times one ONNX model on ONNX Runtime (onnxruntime-node, CPU execution provider) for
// scripts/peer-bench.py: one session, warm-up runs, then timed runs of session.run on the same
// inputs; prints one JSON line {"ms": [...], "median_ms": M}.
//
//   node scripts/ort-bench.js ORT_PACKAGE SPEC.json
//
// SPEC.json: {"model", "inputs": [{"name", "type", "dims", "file"}], "intra_threads",
// "inter_threads", "parallel" (ORT's inter-operator executor), "warmup", "iterations"} with each
// input's raw little-endian bytes in `file`. Graph optimisations "all", ORT's default and what
// people deploy (it fuses and reorders what Weft runs node by node; the comparison says so).
'use strict';
const fs = require('fs');
const path = require('path');

const ort = require(path.resolve(process.argv[2]));
const spec = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));

const { typed } = require('./ort-tensor.js');

(async () => {
  const session = await ort.InferenceSession.create(spec.model, {
    graphOptimizationLevel: 'all',
    executionProviders: ['cpu'],
    intraOpNumThreads: spec.intra_threads,
    interOpNumThreads: spec.inter_threads,
    executionMode: spec.parallel ? 'parallel' : 'sequential',
  });
  const feeds = {};
  for (const input of spec.inputs) {
    feeds[input.name] = new ort.Tensor(input.type, typed(input.type, fs.readFileSync(input.file)), input.dims);
  }
  for (let i = 0; i < spec.warmup; i++) await session.run(feeds);
  const ms = [];
  for (let i = 0; i < spec.iterations; i++) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const sorted = [...ms].sort((a, b) => a - b);
  console.log(JSON.stringify({ ms, median_ms: sorted[sorted.length >> 1] }));
})().catch((e) => {
  console.error(`ort-bench: ${spec.model}: ${e.message}`);
  process.exit(1);
});
