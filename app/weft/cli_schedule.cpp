// The schedule options shared by every command that takes or makes a schedule.
#include <algorithm>
#include <iostream>

#include "cli.h"
#include "weft/core/schedule_json.h"

namespace weft::cli {

namespace {
constexpr std::int64_t kMaxStreams = 1024;

core::Error usage(std::string message) { return core::Error{core::ErrorKind::Usage, std::move(message)}; }
}  // namespace

core::Expected<ScheduleChoice> schedule_choice(const Args& args, std::string_view default_strategy, bool cuda_graph) {
  ScheduleChoice choice;
  choice.file = args.value("schedule");
  const auto strategy = args.value("strategy");
  if (choice.file && strategy) return usage("give --schedule FILE or --strategy S, not both");
  auto streams = args.int_value("streams");
  if (!streams) return streams.error();
  auto granularity = args.double_value("granularity");
  if (!granularity) return granularity.error();
  if (choice.file && (*streams || *granularity))
    return usage("--streams and --granularity shape a --strategy; they do not apply to a loaded --schedule");
  if (*streams) {
    if (**streams < 1 || **streams > kMaxStreams)
      return usage("--streams must be between 1 and " + std::to_string(kMaxStreams) + ", got " + std::to_string(**streams));
    choice.options.max_streams = static_cast<int>(**streams);
  }
  if (*granularity) {
    if (**granularity < 0) return usage("--granularity must be >= 0 (microseconds)");
    choice.options.granularity_us = **granularity;
  }
  choice.options.cuda_graph = cuda_graph;
  choice.strategy = strategy ? *strategy : std::string(default_strategy);
  const auto names = core::strategy_names();
  if (std::find(names.begin(), names.end(), choice.strategy) == names.end()) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    return usage("unknown strategy '" + choice.strategy + "' (known: " + known + ")");
  }
  return choice;
}

core::Expected<core::Schedule> obtain_schedule(std::string_view command, const ScheduleChoice& choice,
                                              const core::Graph& graph, const core::CostTable& costs,
                                              const core::DeviceSpec& device) {
  if (choice.file) return core::load_schedule(*choice.file, graph);
  auto made = core::make_schedule(choice.strategy, graph, costs, device, choice.options);
  if (!made) return made.error();
  for (const std::string& w : core::schedule_warnings(*made, choice.options, device))
    std::cerr << "weft " << command << ": warning: " << w << "\n";
  return made;
}

}  // namespace weft::cli
