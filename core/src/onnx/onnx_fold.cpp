#include "onnx_fold.h"

#include <algorithm>
#include <set>
#include <unordered_set>

namespace weft::core::detail {
namespace {

void collect_outer(const onnx::GraphProto& g, std::set<std::string>& outer) {
  std::unordered_set<std::string> local;
  for (const auto& v : g.input()) local.insert(v.name());
  for (const auto& t : g.initializer()) local.insert(t.name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) local.insert(o);
  for (const auto& n : g.node()) {
    for (const auto& i : n.input())
      if (!i.empty() && !local.count(i)) outer.insert(i);
    std::set<std::string> nested;
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_outer(a.g(), nested);
      for (const auto& sg : a.graphs()) collect_outer(sg, nested);
    }
    for (const auto& i : nested)
      if (!local.count(i)) outer.insert(i);
  }
  for (const auto& o : g.output())
    if (!local.count(o.name())) outer.insert(o.name());
}

}  // namespace

std::vector<std::string> outer_scope_inputs(const onnx::NodeProto& node) {
  std::set<std::string> outer;
  for (const auto& a : node.attribute()) {
    if (a.has_g()) collect_outer(a.g(), outer);
    for (const auto& sg : a.graphs()) collect_outer(sg, outer);
  }
  return {outer.begin(), outer.end()};
}

FoldResult fold_round(onnx::GraphProto&, std::int64_t) { return {}; }

}  // namespace weft::core::detail
