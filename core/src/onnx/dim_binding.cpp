#include "weft/core/onnx/dim_binding.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

namespace weft::core {

std::string UnboundDim::describe() const {
  return input + ": dim " + std::to_string(axis) + (symbol.empty() ? std::string(" (unnamed)") : " '" + symbol + "'");
}

std::vector<UnboundDim> unbound_dims(const Graph& graph) {
  std::vector<UnboundDim> out;
  std::set<std::string> seen;
  for (TensorId t : graph.inputs()) {
    const Tensor& tensor = graph.tensor(t);
    for (std::size_t a = 0; a < tensor.dims.size(); ++a) {
      if (tensor.dims[a].known()) continue;
      UnboundDim d{tensor.name, static_cast<int>(a), static_cast<int>(tensor.dims.size()), tensor.dims[a].symbol};
      if (seen.insert(d.key()).second) out.push_back(std::move(d));
    }
  }
  return out;
}

std::int64_t suggested_dim_value(const UnboundDim& dim) {
  if (dim.axis == 0) return 1;
  std::string lower = dim.symbol;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* word : {"seq", "len", "token", "time"})
    if (lower.find(word) != std::string::npos) return 128;
  if (dim.rank == 4 && dim.axis >= 2) return 224;
  return 1;
}

Expected<std::pair<std::string, std::int64_t>> parse_dim_binding(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0)
    return make_error(ErrorKind::InvalidInput, "dim binding '" + std::string(text) + "' needs NAME=VALUE (NAME a symbol or INPUT:AXIS)");
  const std::string_view value = text.substr(eq + 1);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || v <= 0)
    return make_error(ErrorKind::InvalidInput, "dim binding '" + std::string(text) + "': the value must be a positive integer");
  return std::pair<std::string, std::int64_t>{std::string(text.substr(0, eq)), v};
}

Status require_bound_dims(const Graph& graph, std::string_view what) {
  const auto& dims = graph.info().unresolved_dims;
  if (dims.empty()) return {};
  std::string list;
  for (const std::string& d : dims) list += (list.empty() ? "" : "; ") + d;
  return make_error(ErrorKind::InvalidInput,
                    std::string(what) + " needs every tensor's size; unresolved: " + list + " (bind the dimension)");
}

}  // namespace weft::core
