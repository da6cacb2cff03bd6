#pragma once
// The CPU executor's team per node (hybrid parallelism, Schedule::node_threads): which team each
// node runs on, and what a worker does around a node on a team wider than its stream's. Private
// to exec.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <sys/types.h>

#include "cpu_threads.h"
#include "library_kernel.h"
#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::core::detail {

class NodeTeams {
 public:
  /// Each node's team: Schedule::node_threads where set, else `stream_team` (the run's threads
  /// per stream). Errors (InvalidInput): a team of more threads than `usable` CPUs. O(V).
  Status init(const Graph& graph, const Schedule& schedule, int stream_team, int usable);

  /// The workers' masks (cpu_threads.h), before the run's threads start. O(workers).
  void set_workers(const std::vector<int>& cpus, std::size_t workers, std::size_t team, bool pinned);

  int stream_team() const { return m_stream_team; }
  int team(NodeId v) const { return m_team[static_cast<std::size_t>(v)]; }
  bool wide(NodeId v) const { return team(v) > m_stream_team; }
  /// Nodes on a team other than their stream's, and the largest such team.
  std::int64_t nodes() const { return m_nodes; }
  int widest() const { return m_widest; }
  /// Non-zero while a wide node runs: the waits of the other workers sleep at once.
  const std::atomic<std::uint32_t>* quiet() const { return &m_wide_running; }

  /// Around one node on `worker`: its mask widened to every CPU for a wide node (narrowed back
  /// lazily, at its next narrow one), the thread's team sized for the node, the team's helpers
  /// back on the normal scheduling class, and the node counted as running wide.
  class Scope {
   public:
    Scope(NodeTeams& teams, std::size_t worker, NodeId v);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    NodeTeams& m_teams;
    bool m_wide;
    std::optional<LibraryTeam> m_team;
  };

  /// After node v's latch is recorded on `worker`, `next` its stream's next node (kNoNode: none):
  /// the last wide node before narrow ones puts its team's helpers on the idle class, where their
  /// spin after the node (GNU OpenMP's, milliseconds) takes no CPU a stream needs.
  void after(std::size_t worker, NodeId v, NodeId next);
  /// Preparation on the caller (worker 0): its mask as node v's run will have it.
  void prepare(NodeId v) { m_masks[0]->set(wide(v)); }
  void prepared() { m_masks[0]->set(false); }
  /// At the end of the run, on `worker`: its helpers (a team that outlives the run) back on the
  /// normal class.
  void finish(std::size_t worker);

 private:
  std::vector<int> m_team;
  int m_stream_team = 1;
  std::int64_t m_nodes = 0;
  int m_widest = 0;
  std::atomic<std::uint32_t> m_wide_running{0};
  std::vector<std::optional<WideMask>> m_masks;
  std::vector<std::vector<pid_t>> m_helpers;  ///< per worker: its wide team's helpers
  std::vector<char> m_idle;                   ///< per worker: those helpers are on the idle class
};

}  // namespace weft::core::detail
