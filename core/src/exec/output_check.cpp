// Outputs against expected values, element by element, as numpy.testing.assert_allclose (which
// the ONNX backend tests call) judges them.
#include "weft/core/exec/output_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "kernel.h"

namespace weft::core {
namespace {

bool is_float(DType d) { return d == DType::Float32 || d == DType::Float64 || d == DType::Float16 || d == DType::BFloat16; }

void compare(const HostTensor& got, const HostTensor& want, const Tolerance& tol, OutputCheck& c) {
  const detail::View g{got.dtype, got.shape, const_cast<std::uint8_t*>(got.bytes.data())};
  const detail::View w{want.dtype, want.shape, const_cast<std::uint8_t*>(want.bytes.data())};
  const std::int64_t n = w.elements();
  c.elements = n;
  const bool exact = !is_float(want.dtype);
  const std::size_t es = dtype_size(want.dtype);
  double scale = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (exact) {
      // Integers beyond 2^53 do not survive doubles: their bytes decide equality.
      const bool equal = std::equal(got.bytes.begin() + i * static_cast<std::int64_t>(es), got.bytes.begin() + (i + 1) * static_cast<std::int64_t>(es),
                                    want.bytes.begin() + i * static_cast<std::int64_t>(es));
      const double a = detail::load_double(g, i), e = detail::load_double(w, i);
      const double err = std::abs(a - e);
      scale = std::max(scale, std::abs(e));
      c.max_abs_error = std::max(c.max_abs_error, err);
      if (e != 0) c.max_rel_error = std::max(c.max_rel_error, err / std::abs(e));
      if (!equal) ++c.mismatched;
      continue;
    }
    const double a = detail::load_double(g, i), e = detail::load_double(w, i);
    if (std::isnan(a) || std::isnan(e)) {
      if (std::isnan(a) != std::isnan(e)) {
        c.max_abs_error = c.max_rel_error = std::nan("");
        ++c.mismatched;
      }
      continue;
    }
    if (std::isinf(a) || std::isinf(e)) {
      if (a != e) {
        c.max_abs_error = c.max_rel_error = std::numeric_limits<double>::infinity();
        ++c.mismatched;
      }
      continue;
    }
    const double err = std::abs(a - e);
    scale = std::max(scale, std::abs(e));
    // std::max keeps NaN once it is there (NaN compares false).
    if (!std::isnan(c.max_abs_error)) c.max_abs_error = std::max(c.max_abs_error, err);
    if (e != 0 && !std::isnan(c.max_rel_error)) c.max_rel_error = std::max(c.max_rel_error, err / std::abs(e));
    if (err > tol.atol + tol.rtol * std::abs(e)) ++c.mismatched;
  }
  if (std::isnan(c.max_abs_error) || std::isinf(c.max_abs_error)) c.max_scaled_error = c.max_abs_error;
  else if (scale > 0) c.max_scaled_error = c.max_abs_error / scale;
  else c.max_scaled_error = c.max_abs_error > 0 ? std::numeric_limits<double>::infinity() : 0;
  c.passed = c.mismatched == 0;
}

}  // namespace

std::vector<OutputCheck> check_outputs(const Graph& graph, const RunResult& got, const TensorFiles& expected,
                                       const Tolerance& tolerance) {
  const auto outputs = graph.outputs();
  std::map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < outputs.size(); ++i) index_of.emplace(graph.tensor(outputs[i]).name, i);
  // Matched as inputs are: by name, then the rest by position where that output is still free.
  std::vector<int> output_of(expected.tensors.size(), -1);
  std::vector<bool> taken(outputs.size(), false);
  for (std::size_t f = 0; f < expected.tensors.size(); ++f)
    if (auto it = index_of.find(expected.tensors[f].name); it != index_of.end() && !taken[it->second]) {
      output_of[f] = static_cast<int>(it->second);
      taken[it->second] = true;
    }
  for (std::size_t f = 0; f < expected.tensors.size(); ++f) {
    const int p = expected.tensors[f].position;
    if (output_of[f] >= 0 || p < 0 || static_cast<std::size_t>(p) >= outputs.size() || taken[static_cast<std::size_t>(p)]) continue;
    output_of[f] = p;
    taken[static_cast<std::size_t>(p)] = true;
  }
  std::vector<OutputCheck> checks;
  for (std::size_t f = 0; f < expected.tensors.size(); ++f) {
    const TensorFile& want = expected.tensors[f];
    OutputCheck c;
    c.expected = want.source;
    c.name = want.name;
    if (output_of[f] < 0) {
      c.problem = "'" + want.name + "' is no output of the model";
      checks.push_back(std::move(c));
      continue;
    }
    c.name = graph.tensor(outputs[static_cast<std::size_t>(output_of[f])]).name;
    const auto it = got.outputs.find(c.name);
    if (it == got.outputs.end()) {
      c.problem = "the run did not produce it";
    } else if (it->second.dtype != want.value.dtype || it->second.shape != want.value.shape) {
      c.problem = "the run gave " + tensor_type_text(it->second.dtype, it->second.shape) + ", expected " +
                  tensor_type_text(want.value.dtype, want.value.shape);
    } else {
      compare(it->second, want.value, tolerance, c);
    }
    if (!c.problem.empty()) c.max_abs_error = c.max_rel_error = c.max_scaled_error = std::nan("");
    checks.push_back(std::move(c));
  }
  return checks;
}

bool all_passed(const std::vector<OutputCheck>& checks) {
  return !checks.empty() && std::all_of(checks.begin(), checks.end(), [](const OutputCheck& c) { return c.passed; });
}

}  // namespace weft::core
