// The data a run starts from (inputs, weights, seeded stand-ins), shared by every executor so
// that the CPU reference and the CUDA backend compute on bit-identical values.
#include "weft/core/exec/initial_values.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "half.h"
#include "weft/core/exec/executor.h"
#include "weft/core/proto/tensor_pb.h"
#include "weft/core/base/tensor_size.h"

namespace weft::core {
namespace {

// splitmix64: a tiny, well-mixed generator; seeded per tensor name so values do not depend
// on tensor ids or the order tensors are prepared in.
std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) {
    h ^= static_cast<std::uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::int64_t elements_of(const std::vector<std::int64_t>& shape) { return checked_elements(shape).value_or(-1); }

}  // namespace

void fill_initial_value(const Tensor& t, std::uint64_t seed, bool is_weight, std::uint8_t* out) {
  std::uint64_t s = seed ^ fnv1a(t.name);
  const std::int64_t n = t.elements();
  const auto shape = t.shape();
  double lo = -1, hi = 1;
  if (is_weight && shape.size() >= 2) {
    // Variance 1/fan_in: deep random networks neither explode nor vanish.
    const double fan_in = static_cast<double>(std::max<std::int64_t>(n / std::max<std::int64_t>(shape[0], 1), 1));
    hi = std::sqrt(3.0 / fan_in);
    lo = -hi;
  } else if (is_weight) {
    lo = 0.5;
    hi = 1.0;
  }
  auto uniform = [&] { return lo + (hi - lo) * static_cast<double>(splitmix(s) >> 11) * 0x1.0p-53; };
  switch (t.dtype) {
    case DType::Float32:
      for (std::int64_t i = 0; i < n; ++i) reinterpret_cast<float*>(out)[i] = static_cast<float>(uniform());
      break;
    case DType::Float64:
      for (std::int64_t i = 0; i < n; ++i) reinterpret_cast<double*>(out)[i] = uniform();
      break;
    case DType::Float16:
      for (std::int64_t i = 0; i < n; ++i) reinterpret_cast<detail::Float16*>(out)[i] = detail::Float16::from(uniform());
      break;
    case DType::BFloat16:
      for (std::int64_t i = 0; i < n; ++i) reinterpret_cast<detail::BFloat16*>(out)[i] = detail::BFloat16::from(uniform());
      break;
    case DType::Bool:
      for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(splitmix(s) & 1u);
      break;
    default:
      // Integers (indices, shapes): zero is valid for every consumer.
      std::fill_n(out, static_cast<std::size_t>(n) * dtype_size(t.dtype), std::uint8_t{0});
      break;
  }
}

Expected<HostTensor> initial_value(const Graph& graph, TensorId id, const RunOptions& options, bool* seeded) {
  if (seeded) *seeded = false;
  const Tensor& t = graph.tensor(id);
  const bool is_weight = t.kind == TensorKind::Weight;
  if (!is_weight) {
    if (auto it = options.inputs.find(t.name); it != options.inputs.end()) {
      const HostTensor& h = it->second;
      const std::int64_t given = elements_of(h.shape);
      if (h.dtype != t.dtype || given < 0 || h.bytes.size() != static_cast<std::size_t>(given) * dtype_size(h.dtype))
        return make_error(ErrorKind::InvalidInput, "input '" + t.name + "': given " + std::string(dtype_name(h.dtype)) +
                                                       " data does not match the model's " + std::string(dtype_name(t.dtype)));
      if (t.shape_known() && t.shape() != h.shape)
        return make_error(ErrorKind::InvalidInput, "input '" + t.name + "': given shape differs from the model's " + format_shape(t));
      return h;
    }
  }
  if (!t.shape_known() || t.bytes() < 0) {
    // Name every unbound dim as `weft analyze` does, with the --dim that binds it.
    std::string dims;
    if (!t.rank_known) dims = " (its rank is unknown)";
    for (std::size_t d = 0; d < t.dims.size(); ++d) {
      if (t.dims[d].known()) continue;
      dims += (dims.empty() ? ": " : ", ") + std::string("dim ") + std::to_string(d) +
              (t.dims[d].symbol.empty() ? " (unnamed; --dim " + t.name + ":" + std::to_string(d) + "=VALUE)"
                                        : " '" + t.dims[d].symbol + "' (--dim " + t.dims[d].symbol + "=VALUE)");
    }
    return make_error(ErrorKind::InvalidInput, std::string(is_weight ? "weight '" : "input '") + t.name +
                                                   "' has no static shape" + dims);
  }
  HostTensor h;
  h.dtype = t.dtype;
  h.shape = t.shape();
  // Structure-only models reference external files that are absent: seeded values stand in.
  std::error_code ec;
  const bool has_bytes =
      t.data.inline_bytes != nullptr || (!t.data.external_path.empty() && std::filesystem::exists(t.data.external_path, ec));
  if (is_weight && has_bytes) {
    WEFT_TRY_ASSIGN(auto bytes, read_weight_bytes(t));
    h.bytes = std::move(bytes);
    return h;
  }
  h.bytes.resize(static_cast<std::size_t>(t.bytes()));
  fill_initial_value(t, options.seed, is_weight, h.bytes.data());
  if (seeded && is_weight) *seeded = true;
  return h;
}

}  // namespace weft::core
