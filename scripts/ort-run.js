// Runs one ONNX model on ONNX Runtime (onnxruntime-node, CPU) for scripts/ort-test-data.py.
//
//   node scripts/ort-run.js ORT_PACKAGE SPEC.json
//
// ORT_PACKAGE is the onnxruntime-node folder (npm install --ignore-scripts onnxruntime-node, outside
// the repository; its CPU binaries ship in the package). SPEC.json:
//   {"model": "m.onnx", "inputs": [{"name", "type", "dims", "file"}], "out": "folder"}
// with each input's raw little-endian bytes in `file`. Writes out/output_N.bin (raw bytes, in the
// session's output order) and out/outputs.json ([{"name", "type", "dims", "file"}]). Graph
// optimisations are off so that ORT computes the graph as written (no fused kernels).
'use strict';
const fs = require('fs');
const path = require('path');

const ort = require(path.resolve(process.argv[2]));
const spec = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));

const { typed } = require('./ort-tensor.js');

(async () => {
  const session = await ort.InferenceSession.create(spec.model, {
    graphOptimizationLevel: 'disabled',
    executionProviders: ['cpu'],
  });
  const feeds = {};
  for (const input of spec.inputs) {
    feeds[input.name] = new ort.Tensor(input.type, typed(input.type, fs.readFileSync(input.file)), input.dims);
  }
  const results = await session.run(feeds);
  fs.mkdirSync(spec.out, { recursive: true });
  const meta = [];
  session.outputNames.forEach((name, i) => {
    const t = results[name];
    const file = path.join(spec.out, `output_${i}.bin`);
    fs.writeFileSync(file, Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    meta.push({ name, type: t.type, dims: t.dims, file });
  });
  fs.writeFileSync(path.join(spec.out, 'outputs.json'), JSON.stringify(meta));
})().catch((e) => {
  console.error(`ort-run: ${spec.model}: ${e.message}`);
  process.exit(1);
});
