#pragma once
// Helpers for executor tests: host tensors from values, single-stream runs, bit comparisons.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <memory>
#include <vector>

#include "weft/core/exec/cpu_executor.h"
#include "weft/core/graph/graph.h"
#include "weft/core/memory/memory_plan.h"

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

/// Every output of `b` has the dtype and shape of `a`'s, and its float32 values are within
/// tol * (1 + the largest |value| of a's output) of a's (other dtypes: equal bytes).
inline void expect_close_outputs(const core::RunResult& a, const core::RunResult& b, double tol, const std::string& what) {
  ASSERT_EQ(a.outputs.size(), b.outputs.size()) << what;
  for (const auto& [name, x] : a.outputs) {
    const auto it = b.outputs.find(name);
    ASSERT_NE(it, b.outputs.end()) << what << ": output " << name;
    const core::HostTensor& y = it->second;
    ASSERT_EQ(x.dtype, y.dtype) << what << ": output " << name;
    ASSERT_EQ(x.shape, y.shape) << what << ": output " << name;
    if (x.dtype != core::DType::Float32) {
      EXPECT_EQ(x.bytes, y.bytes) << what << ": output " << name;
      continue;
    }
    const std::vector<float> u = as_f32(x), v = as_f32(y);
    double scale = 0;
    for (float f : u) scale = std::max(scale, static_cast<double>(std::abs(f)));
    double worst = 0;
    std::size_t at = 0;
    for (std::size_t i = 0; i < u.size(); ++i) {
      const double d = std::isnan(u[i]) && std::isnan(v[i]) ? 0.0 : std::abs(static_cast<double>(u[i]) - v[i]);
      if (!(d <= worst)) {
        worst = d;
        at = i;
      }
    }
    EXPECT_LE(worst, tol * (1 + scale)) << what << ": output " << name << " element " << at << ": " << u[at] << " vs " << v[at];
  }
}

/// Node attributes for hand-built graphs.
inline core::Attribute ints(std::string name, std::vector<std::int64_t> v) {
  core::Attribute a;
  a.name = std::move(name);
  a.type = core::Attribute::Type::Ints;
  a.ints = std::move(v);
  return a;
}
inline core::Attribute one_int(std::string name, std::int64_t v) {
  core::Attribute a;
  a.name = std::move(name);
  a.type = core::Attribute::Type::Int;
  a.i = v;
  return a;
}
inline core::Attribute one_float(std::string name, float v) {
  core::Attribute a;
  a.name = std::move(name);
  a.type = core::Attribute::Type::Float;
  a.f = v;
  return a;
}
inline core::Attribute text(std::string name, std::string v) {
  core::Attribute a;
  a.name = std::move(name);
  a.type = core::Attribute::Type::String;
  a.s = std::move(v);
  return a;
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
