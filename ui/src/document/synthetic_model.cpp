#include "weft/ui/synthetic_model.h"

#include <random>
#include <string>
#include <vector>

namespace weft::ui {

core::Expected<core::Graph> make_synthetic_graph(int nodes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  core::GraphBuilder b;
  b.add_input("input", core::DType::Float32, {core::Dim{1, {}}, core::Dim{64, {}}, core::Dim{56, {}}, core::Dim{56, {}}});
  static const char* const kOps[] = {"Conv", "Relu", "BatchNormalization", "Conv", "MaxPool", "Sigmoid"};
  std::vector<std::string> frontier = {"input"};  // open branch ends
  std::uniform_int_distribution<int> op_pick(0, 5);
  std::uniform_real_distribution<double> u01(0, 1);
  for (int i = 0; i < nodes; ++i) {
    const std::string out = "t" + std::to_string(i);
    std::vector<std::string> ins;
    const bool join = frontier.size() > 1 && (u01(rng) < 0.2 || frontier.size() > 6);
    std::uniform_int_distribution<std::size_t> pick(0, frontier.size() - 1);
    const std::size_t a = pick(rng);
    ins.push_back(frontier[a]);
    std::string op = kOps[op_pick(rng)];
    if (join) {
      std::size_t c = pick(rng);
      if (c == a) c = (a + 1) % frontier.size();
      ins.push_back(frontier[c]);
      op = "Add";
      frontier.erase(frontier.begin() + static_cast<long>(std::max(a, c)));
      frontier.erase(frontier.begin() + static_cast<long>(std::min(a, c)));
    } else if (u01(rng) > 0.45 || frontier.size() > 5) {
      frontier.erase(frontier.begin() + static_cast<long>(a));  // extend the branch; else fork it
    }
    b.add_node("node" + std::to_string(i), op, std::span<const std::string>(ins), std::span<const std::string>(&out, 1));
    const std::int64_t ch = 32 << (i % 3);
    b.set_shape(out, core::DType::Float32, {1, ch, 28, 28});
    frontier.push_back(out);
  }
  for (const std::string& t : frontier)
    if (t != "input") b.mark_output(t);
  return std::move(b).build();
}

}  // namespace weft::ui
