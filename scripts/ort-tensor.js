// Typed arrays over raw little-endian tensor bytes, for the scripts that feed ONNX Runtime
// (ort-run.js, ort-bench.js).
'use strict';

const arrays = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array, int64: BigInt64Array, int32: Int32Array,
  int16: Int16Array, int8: Int8Array, uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array,
  uint64: BigUint64Array, bool: Uint8Array,
};

/// The bytes of a tensor of ONNX Runtime type `type` as a typed array (copied: aligned).
function typed(type, bytes) {
  const Array = arrays[type];
  if (!Array) throw new Error(`no typed array for ${type}`);
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return new Array(copy.buffer, 0, bytes.length / Array.BYTES_PER_ELEMENT);
}

module.exports = { typed };
