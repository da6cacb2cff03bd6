#pragma once
// Helpers for executor tests: host tensors from values, single-stream runs, bit comparisons.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "weft/core/cpu_executor.h"
#include "weft/core/graph.h"
#include "weft/core/memory_plan.h"

namespace weft::test {

inline core::HostTensor host_f32(std::vector<std::int64_t> shape, const std::vector<float>& v) {
  core::HostTensor h;
  h.dtype = core::DType::Float32;
  h.shape = std::move(shape);
  h.bytes.resize(v.size() * 4);
  std::memcpy(h.bytes.data(), v.data(), h.bytes.size());
  return h;
}

inline core::HostTensor host_i64(std::vector<std::int64_t> shape, const std::vector<std::int64_t>& v) {
  core::HostTensor h;
  h.dtype = core::DType::Int64;
  h.shape = std::move(shape);
  h.bytes.resize(v.size() * 8);
  std::memcpy(h.bytes.data(), v.data(), h.bytes.size());
  return h;
}

inline std::vector<float> as_f32(const core::HostTensor& h) {
  std::vector<float> v(h.bytes.size() / 4);
  std::memcpy(v.data(), h.bytes.data(), h.bytes.size());
  return v;
}

template <class T>
core::WeightData inline_weight(const std::vector<T>& v) {
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(v.size() * sizeof(T));
  std::memcpy(bytes->data(), v.data(), bytes->size());
  core::WeightData d;
  d.inline_bytes = std::move(bytes);
  return d;
}

/// Every node on one stream in topological order.
inline core::Schedule sequential_schedule(const core::Graph& g) {
  core::Schedule s;
  s.streams.emplace_back(g.topo_order().begin(), g.topo_order().end());
  s.strategy = "sequential";
  return s;
}

inline core::Expected<core::RunResult> run_sequential(const core::Graph& g, core::RunOptions options = {}) {
  options.warmup = 0;
  return core::make_cpu_executor()->run(g, sequential_schedule(g), core::plan_no_reuse(g), options);
}

}  // namespace weft::test
