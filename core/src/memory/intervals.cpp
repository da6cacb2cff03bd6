// Raw allocation instances in MiniMalloc's CSV format (Moffitt, "MiniMalloc", ASPLOS 2023):
// `id,lower,upper,size` with half-open lifetimes [lower, upper).
#include "weft/core/memory/intervals.h"

#include <charconv>
#include <unordered_set>

#include "allocation_detail.h"
#include "weft/core/memory/allocation_problem.h"
#include "weft/core/base/tensor_size.h"

namespace weft::core {
namespace {

constexpr std::int64_t kMaxIntervalTime = std::int64_t{1} << 40;
constexpr std::int64_t kMaxTotalBytes = std::int64_t{1} << 60;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

Expected<IntervalInstance> parse_minimalloc_csv(std::string_view text, std::string_view source_name) {
  IntervalInstance out;
  std::unordered_set<std::string> ids;
  std::size_t line_no = 0;
  bool header = true;
  std::int64_t total = 0;
  const auto where = [&] { return std::string(source_name) + ":" + std::to_string(line_no) + ": "; };
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = trim(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    if (line.empty()) continue;
    std::vector<std::string_view> cols;
    for (std::size_t at = 0;;) {
      const std::size_t comma = line.find(',', at);
      cols.push_back(trim(line.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at)));
      if (comma == std::string_view::npos) break;
      at = comma + 1;
    }
    if (header) {
      header = false;
      if (cols.size() < 4 || cols[0] != "id" || cols[1] != "lower" || cols[2] != "upper" || cols[3] != "size")
        return make_error(ErrorKind::InvalidInput, where() + "expected the header 'id,lower,upper,size'");
      continue;
    }
    if (cols.size() != 4)
      return make_error(ErrorKind::InvalidInput, where() + "expected 4 columns, found " + std::to_string(cols.size()));
    std::int64_t v[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) {
      const std::string_view c = cols[static_cast<std::size_t>(k + 1)];
      auto [ptr, ec] = std::from_chars(c.data(), c.data() + c.size(), v[k]);
      if (ec != std::errc() || ptr != c.data() + c.size())
        return make_error(ErrorKind::InvalidInput, where() + "'" + std::string(c) + "' is not an integer");
    }
    if (v[0] < 0 || v[1] <= v[0])
      return make_error(ErrorKind::InvalidInput, where() + "lifetime [" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ") is empty or negative");
    if (v[2] <= 0) return make_error(ErrorKind::InvalidInput, where() + "size must be positive");
    // Planners add sizes and step through times: bounded here, no sum leaves 64 bits.
    if (v[1] > kMaxIntervalTime)
      return make_error(ErrorKind::InvalidInput, where() + "time " + std::to_string(v[1]) + " is too large (at most 2^40)");
    if (v[2] > kMaxTensorBytes)
      return make_error(ErrorKind::InvalidInput, where() + "size " + std::to_string(v[2]) + " is too large (at most 2^48 bytes)");
    total += v[2];
    if (total > kMaxTotalBytes)
      return make_error(ErrorKind::InvalidInput, where() + "sizes too large: their total passes 2^60 bytes");
    std::string id(cols[0]);
    if (id.empty() || !ids.insert(id).second)
      return make_error(ErrorKind::InvalidInput, where() + "id '" + id + "' is empty or repeated");
    out.ids.push_back(std::move(id));
    out.lower.push_back(v[0]);
    out.upper.push_back(v[1]);
    out.size.push_back(v[2]);
  }
  if (header) return make_error(ErrorKind::InvalidInput, std::string(source_name) + ": empty file (no header)");
  return out;
}

AllocationProblem interval_problem(const IntervalInstance& instance) {
  AllocationProblem p;
  p.alignment = 1;
  p.size = instance.size;
  p.start = instance.lower;
  p.end.reserve(instance.upper.size());
  for (std::int64_t u : instance.upper) p.end.push_back(u - 1);  // half-open → closed
  p.conflicts = detail::interval_conflicts(p.start, p.end);
  p.conflicts_are_overlaps = true;
  return p;
}

}  // namespace weft::core
