// Profiles one ONNX model on ONNX Runtime (onnxruntime-node, CPU execution provider, sequential
// executor, one intra-op thread) for scripts/profile-peers.py: a session with enable_profiling at
// the given graph optimisation level, warm-up runs, then timed runs; ONNX Runtime writes the
// profile (every run since the session started) and this prints its path as one JSON line.
//
//   node scripts/ort-profile.js ORT_PACKAGE SPEC.json
//
// SPEC.json: {"model", "inputs": [{"name", "type", "dims", "file"}], "level" ("basic", "extended"
// or "all"), "warmup", "iterations", "prefix" (the profile's path prefix)}, each input's raw
// little-endian bytes in `file` (scripts/ort-bench.js's layout).
'use strict';
const fs = require('fs');
const path = require('path');

const ort = require(path.resolve(process.argv[2]));
const spec = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const { typed } = require('./ort-tensor.js');

(async () => {
  const session = await ort.InferenceSession.create(spec.model, {
    graphOptimizationLevel: spec.level,
    executionProviders: ['cpu'],
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    enableProfiling: true,
    profileFilePrefix: spec.prefix,
  });
  const feeds = {};
  for (const input of spec.inputs) {
    feeds[input.name] = new ort.Tensor(input.type, typed(input.type, fs.readFileSync(input.file)), input.dims);
  }
  for (let i = 0; i < spec.warmup + spec.iterations; i++) await session.run(feeds);
  session.endProfiling();
  const dir = path.dirname(spec.prefix);
  const base = path.basename(spec.prefix);
  const written = fs.readdirSync(dir).filter((f) => f.startsWith(base) && f.endsWith('.json'));
  console.log(JSON.stringify({ profile: written.map((f) => path.join(dir, f)) }));
})().catch((e) => {
  console.error(`ort-profile: ${spec.model}: ${e.message}`);
  process.exit(1);
});
