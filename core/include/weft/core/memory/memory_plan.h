#pragma once
// A memory plan: arena offsets for the planned tensors of one graph under one schedule.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "weft/core/graph/graph.h"

namespace weft::core {

inline constexpr std::int64_t kNotPlanned = -1;
inline constexpr std::int64_t kDefaultAlignment = 256;
/// Limits on what a plan may ask for: an alignment of at most 1 GiB and an arena of at most 2^50
/// bytes (far beyond any device). Plans and options past them are refused, so no offset plus size
/// overflows.
inline constexpr std::int64_t kMaxAlignment = std::int64_t{1} << 30;
inline constexpr std::int64_t kMaxArenaBytes = std::int64_t{1} << 50;

/// offset[t] is the byte offset of tensor t in the arena, or kNotPlanned for tensors that
/// live elsewhere (graph inputs, weights, and outputs unless planned). size[t] is the padded
/// size used for placement (bytes rounded up to alignment).
struct MemoryPlan {
  std::string planner;      ///< e.g. "greedy-by-size", "none"
  std::int64_t alignment = kDefaultAlignment;
  std::int64_t arena_bytes = 0;
  bool outputs_in_arena = false;
  std::vector<std::int64_t> offset;  ///< per TensorId
  std::vector<std::int64_t> size;    ///< per TensorId (0 when not planned)
};

/// Rounds bytes up to a multiple of alignment (alignment > 0).
inline std::int64_t align_up(std::int64_t bytes, std::int64_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

/// Which tensors go in the arena: intermediates (and outputs when asked) with a known size. A
/// view never is (it lies inside its parent); a graph output whose bytes its views write is, when
/// outputs are planned.
bool is_planned_tensor(const Tensor& t, bool outputs_in_arena);
/// The same for tensor t of graph, its size read from Graph::bytes.
bool is_planned_tensor(const Graph& graph, TensorId t, bool outputs_in_arena);

/// The nodes that write a tensor's bytes: its producer, or, for the parent of views (a micro-batch
/// split's output, a merged node's block of outputs), every view's producer; ascending, distinct.
/// O(1): Graph::writers.
std::span<const NodeId> tensor_writers(const Graph& graph, TensorId t);
/// The nodes that read a tensor's bytes: its consumers and its views' consumers; ascending,
/// distinct. O(1): Graph::readers.
std::span<const NodeId> tensor_readers(const Graph& graph, TensorId t);
/// True when some planned tensor is written by several nodes (a split output's parent: the
/// bounds pass then takes the linearisation's bound). A block one merged node writes through its
/// views has one writer. O(T).
bool has_multi_writer_tensors(const Graph& graph, bool outputs_in_arena);

/// Places every view of a planned tensor at its parent's offset + view_offset (size: its bytes);
/// views of unplanned tensors stay kNotPlanned. Planners call it last. O(T).
void place_views(const Graph& graph, MemoryPlan& plan);

/// A plan with no reuse at all: every planned tensor gets its own bytes. Always valid, for
/// any schedule; its arena is the "no-reuse total". O(T).
MemoryPlan plan_no_reuse(const Graph& graph, std::int64_t alignment = kDefaultAlignment, bool outputs_in_arena = false);

}  // namespace weft::core
