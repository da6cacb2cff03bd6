// Arena growth along a run: live bytes and the plan's high-water mark per step (a linearisation
// of the schedule) and, given a timeline, over time.
#include "weft/core/memory/memory_growth.h"

#include <algorithm>
#include <limits>

#include "allocation_detail.h"
#include "weft/core/base/check.h"

namespace weft::core {

namespace {

// The nodes that open a planned tensor's lifetime (open(v): its producer, or for the parent of
// views, which has none, every view's writer) and those that close it (close(v): the same and
// every reader). Outputs in the arena on a split model are such parents.
template <class Open, class Close>
void lifetime_nodes(const Graph& graph, TensorId t, Open&& open, Close&& close) {
  const Tensor& tensor = graph.tensor(t);
  if (tensor.views.empty()) {
    open(tensor.producer);
    close(tensor.producer);
    for (NodeId r : tensor.consumers) close(r);
    return;
  }
  for (NodeId w : tensor_writers(graph, t)) {
    open(w);
    close(w);
  }
  for (NodeId r : tensor_readers(graph, t)) close(r);
}

// A tensor counted in growth: planned and not a view (a view's bytes are its parent's).
bool counted(const Graph& graph, const MemoryPlan& plan, std::size_t t) {
  return plan.offset[t] >= 0 && !graph.tensor(static_cast<TensorId>(t)).is_view();
}

// Live bytes and high-water over the timeline's time: a tensor lives from its producer's start
// to its last reader's end; frees at a time apply before allocations at the same time (the
// samples sum every change at one time). O(V + T log T).
void add_over_time(const Graph& graph, const MemoryPlan& plan, const Timeline& timeline, MemoryGrowth& out) {
  std::vector<double> start(graph.node_count(), 0), end(graph.node_count(), 0);
  for (const TimelineItem& it : timeline.items)
    if (it.node >= 0 && static_cast<std::size_t>(it.node) < graph.node_count()) {
      start[static_cast<std::size_t>(it.node)] = it.start_us;
      end[static_cast<std::size_t>(it.node)] = it.end_us;
    }
  struct Change {
    double time;
    std::int64_t delta, top;
  };
  std::vector<Change> changes;
  for (std::size_t t = 0; t < graph.tensor_count(); ++t) {
    if (!counted(graph, plan, t)) continue;
    double s = std::numeric_limits<double>::infinity(), e = -std::numeric_limits<double>::infinity();
    lifetime_nodes(
        graph, static_cast<TensorId>(t), [&](NodeId v) { s = std::min(s, start[static_cast<std::size_t>(v)]); },
        [&](NodeId v) { e = std::max(e, end[static_cast<std::size_t>(v)]); });
    changes.push_back({s, plan.size[t], plan.offset[t] + plan.size[t]});
    changes.push_back({e, -plan.size[t], 0});
  }
  std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.time < b.time; });
  std::int64_t l = 0, h = 0;
  for (std::size_t i = 0; i < changes.size();) {
    const double time = changes[i].time;
    for (; i < changes.size() && changes[i].time == time; ++i) {
      l += changes[i].delta;
      h = std::max(h, changes[i].top);
    }
    out.live_over_time.push_back({time, static_cast<double>(l)});
    out.high_water_over_time.push_back({time, static_cast<double>(h)});
  }
}

// Growth along `steps` when given (a linearisation of the schedule's H), else along the
// timeline's start times.
Expected<MemoryGrowth> growth_along(const Graph& graph, const std::vector<NodeId>* steps, const MemoryPlan& plan,
                                    const Timeline* timeline) {
  if (plan.offset.size() != graph.tensor_count())
    return make_error(ErrorKind::InvalidInput, "plan does not match the model's tensors");
  MemoryGrowth out;
  if (timeline) {
    // Steps in the order the nodes started.
    std::vector<const TimelineItem*> items;
    for (const TimelineItem& it : timeline->items) items.push_back(&it);
    std::stable_sort(items.begin(), items.end(), [](auto a, auto b) { return a->start_us < b->start_us; });
    std::vector<char> seen(graph.node_count(), 0);
    for (auto it : items)
      if (it->node >= 0 && static_cast<std::size_t>(it->node) < graph.node_count() && !seen[static_cast<std::size_t>(it->node)]) {
        seen[static_cast<std::size_t>(it->node)] = 1;
        out.steps.push_back(it->node);
      }
    if (out.steps.size() != graph.node_count())
      return make_error(ErrorKind::InvalidInput, "timeline does not cover every node of the model");
  } else {
    WEFT_CHECK(steps != nullptr);
    out.steps = *steps;
  }
  const std::size_t n = out.steps.size();
  std::vector<std::int64_t> pos(graph.node_count());
  for (std::size_t i = 0; i < n; ++i) pos[static_cast<std::size_t>(out.steps[i])] = static_cast<std::int64_t>(i);
  std::vector<std::int64_t> diff(n + 1, 0), top_at(n, 0);
  for (std::size_t t = 0; t < graph.tensor_count(); ++t) {
    if (!counted(graph, plan, t)) continue;
    std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = -1;
    lifetime_nodes(
        graph, static_cast<TensorId>(t), [&](NodeId v) { first = std::min(first, pos[static_cast<std::size_t>(v)]); },
        [&](NodeId v) { last = std::max(last, pos[static_cast<std::size_t>(v)]); });
    const auto s = static_cast<std::size_t>(first), e = static_cast<std::size_t>(last);
    diff[s] += plan.size[t];
    diff[e + 1] -= plan.size[t];
    top_at[s] = std::max(top_at[s], plan.offset[t] + plan.size[t]);
  }
  std::int64_t live = 0, high = 0;
  for (std::size_t i = 0; i < n; ++i) {
    live += diff[i];
    high = std::max(high, top_at[i]);
    out.live_bytes.push_back(live);
    out.high_water.push_back(high);
  }
  if (timeline) add_over_time(graph, plan, *timeline, out);
  return out;
}

}  // namespace

Expected<MemoryGrowth> memory_growth(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan,
                                     const Timeline* timeline) {
  // A timeline gives the steps; only without one is the schedule's order needed.
  if (timeline) return growth_along(graph, nullptr, plan, timeline);
  WEFT_TRY_ASSIGN(const ExecutionOrder order, ExecutionOrder::build_unclocked(graph, schedule));
  return growth_along(graph, &order.order(), plan, nullptr);
}

Expected<MemoryGrowth> memory_growth(const Graph& graph, const ExecutionOrder& order, const MemoryPlan& plan,
                                     const Timeline* timeline) {
  return growth_along(graph, timeline ? nullptr : &order.order(), plan, timeline);
}

Expected<MemoryGrowth> memory_growth_over_time(const Graph& graph, const MemoryPlan& plan, const Timeline& timeline) {
  if (plan.offset.size() != graph.tensor_count())
    return make_error(ErrorKind::InvalidInput, "plan does not match the model's tensors");
  std::vector<char> seen(graph.node_count(), 0);
  std::size_t covered = 0;
  for (const TimelineItem& it : timeline.items)
    if (it.node >= 0 && static_cast<std::size_t>(it.node) < graph.node_count() && !seen[static_cast<std::size_t>(it.node)]) {
      seen[static_cast<std::size_t>(it.node)] = 1;
      ++covered;
    }
  if (covered != graph.node_count()) return make_error(ErrorKind::InvalidInput, "timeline does not cover every node of the model");
  MemoryGrowth out;
  add_over_time(graph, plan, timeline, out);
  return out;
}

}  // namespace weft::core
