#pragma once
// What each importer hands the common mapping step (profile.cpp): the profile's kernel records,
// each already matched to the nodes it ran (or to none), per profiled iteration.
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/base/median.h"
#include "weft/core/graph/graph.h"
#include "weft/core/profile/profile.h"

namespace weft::core::detail {

/// One kernel (or operator) of the profile, in one iteration.
struct ProfileRecord {
  int run = 0;          ///< the iteration it belongs to, 0..runs-1
  int stream = 0;       ///< the importer's stream id (thread id, CUDA stream), renumbered later
  double start_us = 0;  ///< from the iteration's start
  double dur_us = 0;
  std::string name;     ///< as the profile names it (suffixes such as "_kernel_time" removed)
  std::string op;       ///< op_name / aten operator, where recorded
  /// The nodes it ran: one, or a fused chain in execution order (its time spread by predicted
  /// cost share); empty: matched no node.
  std::vector<NodeId> nodes;
  ProfileMatch match = ProfileMatch::None;
};

/// An importer's result: records of every iteration, each iteration's own duration, and what to
/// say about the source.
struct ProfileRecords {
  std::vector<ProfileRecord> records;
  std::vector<double> iteration_us;  ///< per run
  std::string source;
  DeviceKind device_kind = DeviceKind::Cpu;
  std::vector<std::string> notes;
};

/// Importers: parse and match; errors name the file. `predicted` orders fused chains' shares.
Expected<ProfileRecords> onnxruntime_records(const Graph& graph, std::string_view text, const std::string& path);
Expected<ProfileRecords> pytorch_records(const Graph& graph, std::string_view text, const std::string& path);
Expected<ProfileRecords> weft_trace_records(const Graph& graph, std::string_view text, const std::string& path);

/// The profile's JSON; a parse error (malformed or truncated) names the file and the byte.
Expected<nlohmann::json> parse_profile_json(std::string_view text, const std::string& path);

/// A number field of an object (numbers written as strings too, as ONNX Runtime writes some);
/// nullopt where absent or not a number. Never throws.
inline std::optional<double> json_number(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) {
    const std::string& s = it->get_ref<const std::string&>();
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() && *end == '\0') return v;
  }
  return std::nullopt;
}
/// A string field of an object; empty where absent or not a string. Never throws.
inline std::string json_string(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return {};
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

using core::median;  // base/median.h

/// Whether a node runs a kernel of its own by Weft's cost model (metadata-only nodes do not).
bool is_operator(const CostTable& predicted, NodeId n);

}  // namespace weft::core::detail
