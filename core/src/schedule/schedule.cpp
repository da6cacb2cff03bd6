// Where each node sits in a schedule: the one placement pass, with the input errors every
// schedule pass reports in the same words.
#include "weft/core/schedule/schedule.h"

#include "weft/core/schedule/sync.h"

namespace weft::core {

bool Schedule::has_node_teams() const {
  for (std::int32_t t : node_threads)
    if (t > 0 && t != threads_per_stream) return true;
  return false;
}

Expected<StreamSlots> stream_slots(const Graph& graph, const Schedule& schedule) {
  const std::size_t n = graph.node_count();
  if (schedule.streams.size() > kMaxScheduleStreams)
    return make_error(ErrorKind::InvalidInput, "the schedule has " + std::to_string(schedule.streams.size()) +
                                                   " streams; weft handles at most " + std::to_string(kMaxScheduleStreams));
  StreamSlots p;
  p.stream_of.assign(n, -1);
  p.position.assign(n, -1);
  for (std::size_t s = 0; s < schedule.streams.size(); ++s)
    for (std::size_t i = 0; i < schedule.streams[s].size(); ++i) {
      const NodeId v = schedule.streams[s][i];
      if (v < 0 || static_cast<std::size_t>(v) >= n)
        return make_error(ErrorKind::InvalidInput, "stream " + std::to_string(s) + " names node index " + std::to_string(v) +
                                                       ", which the model does not have");
      const auto vi = static_cast<std::size_t>(v);
      if (p.stream_of[vi] >= 0)
        return make_error(ErrorKind::InvalidInput, "node '" + graph.key(v) + "' is placed twice (streams " +
                                                       std::to_string(p.stream_of[vi]) + " and " + std::to_string(s) + ")");
      p.stream_of[vi] = static_cast<int>(s);
      p.position[vi] = static_cast<int>(i);
    }
  for (std::size_t v = 0; v < n; ++v)
    if (p.stream_of[v] < 0)
      return make_error(ErrorKind::InvalidInput, "node '" + graph.key(static_cast<NodeId>(v)) + "' is on no stream");
  return p;
}

}  // namespace weft::core
