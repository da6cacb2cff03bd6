#include "weft/ui/studio_document.h"

#include <QUndoCommand>
#include <algorithm>

#include "weft/core/memory_planner.h"
#include "weft/core/simulate.h"
#include "weft/ui/core_bridge.h"

namespace weft::ui {

namespace {
// Above this size the simulator and the planner are not re-run on every edit (GUI thread).
constexpr std::size_t kLivePredictionNodes = 4000;
constexpr const char* kLivePlanner = "greedy-by-size";
}  // namespace

/// One schedule edit: the core edit API computed `after` from `before`; undo and redo swap them.
class ScheduleCommand : public QUndoCommand {
 public:
  ScheduleCommand(StudioDocument* doc, const QString& text, core::Schedule before, core::Schedule after)
      : QUndoCommand(text), m_doc(doc), m_before(std::move(before)), m_after(std::move(after)) {}
  void redo() override { m_doc->setScheduleInternal(m_after); }
  void undo() override { m_doc->setScheduleInternal(m_before); }

 private:
  StudioDocument* m_doc;
  core::Schedule m_before, m_after;
};

StudioDocument::StudioDocument(QObject* parent) : QObject(parent) {}
StudioDocument::~StudioDocument() { m_undo.clear(); }

void StudioDocument::setModel(LoadedModel model) {
  m_undo.clear();
  m_graph = std::move(model.graph);
  m_analysis = std::move(model.analysis);
  m_original_analysis.reset();
  m_costs_origin.clear();
  m_device = std::move(model.device);
  m_options = model.options;
  m_path = model.path;
  m_selection.clear();
  m_runs.clear();
  m_selected.assign(m_graph->node_count(), false);
  m_schedule = {};
  refreshCosts();
  setScheduleInternal(std::move(model.schedule));
  emit modelChanged();
  emit selectionChanged();
}

void StudioDocument::refreshCosts() {
  m_times = core::node_times(m_analysis->costs);
  m_times.resize(m_graph->node_count(), 0.0);
  m_critical.assign(m_graph->node_count(), false);
  for (core::NodeId n : m_analysis->critical.nodes) m_critical[static_cast<std::size_t>(n)] = true;
  core::Schedule sequential;
  sequential.streams.emplace_back(m_graph->topo_order().begin(), m_graph->topo_order().end());
  sequential.strategy = "sequential";
  m_sequential_eager = {};
  m_sequential_graph = {};
  double eager_us = -1;
  std::tie(eager_us, m_figures.sequential_arena_bytes) = predict(sequential, &m_sequential_eager, false);
  if (eager_us >= 0) {
    core::SimOptions graph_mode;
    graph_mode.cuda_graph = true;
    m_sequential_graph = core::simulate(*m_graph, sequential, m_analysis->costs, m_device, graph_mode);
    m_sequential_eager.label = "sequential eager";
    m_sequential_eager.kind = "sequential-eager";
    m_sequential_graph.label = "sequential graph";
    m_sequential_graph.kind = "sequential-graph";
  }
}

void StudioDocument::setCosts(const core::CostTable& costs, const QString& origin) {
  if (!hasModel() || costs.nodes.size() != m_graph->node_count()) return;
  if (!m_original_analysis) m_original_analysis = m_analysis;
  m_analysis = std::make_shared<const core::AnalysisReport>(bridge::analyze(*m_graph, costs));
  m_costs_origin = origin;
  refreshCosts();
  emit costsChanged();
  setScheduleInternal(m_schedule);
}

void StudioDocument::resetCosts() {
  if (!hasModel() || !m_original_analysis) return;
  m_analysis = std::move(m_original_analysis);
  m_original_analysis.reset();
  m_costs_origin.clear();
  refreshCosts();
  emit costsChanged();
  setScheduleInternal(m_schedule);
}

void StudioDocument::addRun(core::Timeline run) {
  auto same = std::find_if(m_runs.begin(), m_runs.end(), [&](const core::Timeline& r) { return r.label == run.label; });
  if (same != m_runs.end())
    *same = std::move(run);
  else
    m_runs.push_back(std::move(run));
  emit runsChanged();
}

void StudioDocument::clearRuns() {
  if (m_runs.empty()) return;
  m_runs.clear();
  emit runsChanged();
}

bool StudioDocument::replaceSchedule(const core::Schedule& schedule, QString* reason) {
  if (!hasModel()) return false;
  if (auto ok = bridge::validate_schedule(*m_graph, schedule); !ok) {
    if (reason) *reason = QString::fromStdString(ok.error().message);
    return false;
  }
  m_undo.clear();
  setScheduleInternal(schedule);
  return true;
}

void StudioDocument::setScheduleInternal(core::Schedule schedule) {
  m_schedule = std::move(schedule);
  m_schedule.locate(m_graph->node_count(), m_stream_of, m_position);
  m_figures.streams = static_cast<int>(m_schedule.stream_count());
  m_figures.events = static_cast<int>(m_schedule.events.size());
  m_figures.sequential_us = 0;
  for (double t : m_times) m_figures.sequential_us += t;
  m_figures.ideal_us = bridge::ideal_makespan_us(*m_graph, m_schedule, m_times);
  m_figures.speedup = m_figures.ideal_us > 0 ? m_figures.sequential_us / m_figures.ideal_us : 1.0;
  core::Timeline predicted;
  std::tie(m_figures.predicted_us, m_figures.arena_bytes) = predict(m_schedule, &predicted, m_options.cuda_graph);
  m_figures.predicted_sequential_us = -1;
  if (m_figures.predicted_us >= 0)
    m_figures.predicted_sequential_us = (m_options.cuda_graph ? m_sequential_graph : m_sequential_eager).makespan_us();
  m_predicted.clear();
  if (m_figures.predicted_us >= 0) {
    predicted.label = "predicted " + (m_schedule.strategy.empty() ? std::string("schedule") : m_schedule.strategy);
    predicted.kind = "predicted";
    m_predicted = {std::move(predicted), m_sequential_eager, m_sequential_graph};
  }
  emit scheduleChanged();
}

std::pair<double, std::int64_t> StudioDocument::predict(const core::Schedule& schedule, core::Timeline* timeline,
                                                        bool cuda_graph) const {
  if (m_graph->node_count() > kLivePredictionNodes) return {-1.0, -1};
  double predicted = -1;
  if (m_device.peak_fp32_flops > 0 && m_device.memory_bandwidth > 0) {
    core::SimOptions sim;
    sim.cuda_graph = cuda_graph;
    core::Timeline t = core::simulate(*m_graph, schedule, m_analysis->costs, m_device, sim);
    predicted = t.makespan_us();
    if (timeline) *timeline = std::move(t);
  }
  auto plan = core::plan_memory(*m_graph, schedule, kLivePlanner);
  return {predicted, plan ? plan->arena_bytes : -1};
}

bool StudioDocument::pushEdit(const QString& text, core::Expected<core::Schedule> result) {
  if (!result) {
    m_last_refusal = QString::fromStdString(result.error().message);
    emit editRefused(m_last_refusal);
    return false;
  }
  m_last_refusal.clear();
  m_undo.push(new ScheduleCommand(this, text, m_schedule, std::move(*result)));
  return true;
}

bool StudioDocument::moveNodes(std::vector<core::NodeId> nodes, int stream, int position) {
  if (!hasModel() || nodes.empty()) return false;
  // Order the moved nodes as they run now (stream, then position); a contiguous run of one stream
  // is one core move_nodes call, anything else a chain of move_node calls that must all succeed.
  std::sort(nodes.begin(), nodes.end(), [&](core::NodeId a, core::NodeId b) {
    return std::pair(streamOf(a), positionOf(a)) < std::pair(streamOf(b), positionOf(b));
  });
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  const QString text = nodes.size() == 1
                           ? tr("Move %1 to stream %2").arg(QString::fromStdString(m_graph->key(nodes[0]))).arg(stream)
                           : tr("Move %1 nodes to stream %2").arg(nodes.size()).arg(stream);
  bool contiguous = true;
  for (std::size_t i = 1; i < nodes.size(); ++i)
    contiguous = contiguous && streamOf(nodes[i]) == streamOf(nodes[0]) &&
                 positionOf(nodes[i]) == positionOf(nodes[0]) + static_cast<int>(i);
  if (nodes.size() == 1) return pushEdit(text, bridge::move_node(*m_graph, m_schedule, nodes[0], stream, position));
  if (contiguous) return pushEdit(text, bridge::move_nodes(*m_graph, m_schedule, nodes, stream, position));

  // `position` counts the target stream's nodes that are not moved; the moved ones end up as one
  // block there, in their current order.
  std::vector<bool> moving(m_graph->node_count(), false);
  for (core::NodeId n : nodes) moving[static_cast<std::size_t>(n)] = true;
  core::Schedule s = m_schedule;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (stream < 0 || static_cast<std::size_t>(stream) >= s.streams.size())
      return pushEdit(text, core::make_error(core::ErrorKind::Usage, "there is no stream " + std::to_string(stream)));
    std::vector<core::NodeId> target = s.streams[static_cast<std::size_t>(stream)];
    target.erase(std::remove(target.begin(), target.end(), nodes[i]), target.end());
    int at = static_cast<int>(target.size());
    if (i > 0) {
      at = static_cast<int>(std::find(target.begin(), target.end(), nodes[i - 1]) - target.begin()) + 1;
    } else {
      int fixed = 0;
      for (std::size_t k = 0; k < target.size(); ++k)
        if (!moving[static_cast<std::size_t>(target[k])] && fixed++ == position) { at = static_cast<int>(k); break; }
    }
    auto next = bridge::move_node(*m_graph, s, nodes[i], stream, at);
    if (!next) return pushEdit(text, next.error());
    s = std::move(*next);
  }
  return pushEdit(text, std::move(s));
}

bool StudioDocument::addStream() {
  if (!hasModel()) return false;
  return pushEdit(tr("Add stream"), bridge::add_stream(*m_graph, m_schedule));
}

bool StudioDocument::removeStream(int stream) {
  if (!hasModel()) return false;
  return pushEdit(tr("Remove stream %1").arg(stream), bridge::remove_stream(*m_graph, m_schedule, stream));
}

bool StudioDocument::mergeStreams(int into, int from) {
  if (!hasModel()) return false;
  return pushEdit(tr("Merge stream %1 into %2").arg(from).arg(into),
                  bridge::merge_streams(*m_graph, m_schedule, into, from));
}

bool StudioDocument::applyStrategy(const QString& name, const core::StrategyOptions& options) {
  if (!hasModel()) return false;
  auto s = bridge::make_schedule(name.toStdString(), *m_graph, m_analysis->costs, m_device, options);
  if (s) m_options = options;
  return pushEdit(tr("Apply strategy %1").arg(name), std::move(s));
}

bool StudioDocument::isSelected(core::NodeId n) const {
  return n >= 0 && static_cast<std::size_t>(n) < m_selected.size() && m_selected[static_cast<std::size_t>(n)];
}

void StudioDocument::setSelection(std::vector<core::NodeId> nodes) {
  if (!hasModel()) return;
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  if (nodes == m_selection) return;
  for (core::NodeId n : m_selection) m_selected[static_cast<std::size_t>(n)] = false;
  m_selection = std::move(nodes);
  for (core::NodeId n : m_selection) m_selected[static_cast<std::size_t>(n)] = true;
  emit selectionChanged();
}

}  // namespace weft::ui
