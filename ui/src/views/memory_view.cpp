#include "weft/ui/memory_view.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "weft/core/onnx/dim_binding.h"
#include "weft/ui/byte_format.h"
#include "weft/ui/frontier_view.h"
#include "weft/ui/offset_map_view.h"
#include "weft/ui/stream_colors.h"
#include "weft/ui/studio_document.h"
#include "weft/ui/worker_pool.h"

namespace weft::ui {

namespace {

// A per-step series as a step function: step i holds its value over [i, i + 1).
QList<QPointF> step_points(const std::vector<std::int64_t>& v, double unit) {
  QList<QPointF> pts;
  pts.reserve(static_cast<qsizetype>(2 * v.size()));
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double y = static_cast<double>(v[i]) / unit;
    pts.append(QPointF(static_cast<double>(i), y));
    pts.append(QPointF(static_cast<double>(i + 1), y));
  }
  return pts;
}

// Counter samples hold their value until the next sample.
QList<QPointF> time_points(const std::vector<core::CounterSample>& v, double end_us, double unit) {
  QList<QPointF> pts;
  pts.reserve(static_cast<qsizetype>(2 * v.size() + 1));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) pts.append(QPointF(v[i].time_us, v[i - 1].value / unit));
    pts.append(QPointF(v[i].time_us, v[i].value / unit));
  }
  if (!v.empty() && end_us > v.back().time_us) pts.append(QPointF(end_us, v.back().value / unit));
  return pts;
}

}  // namespace

MemoryView::ChartPoints MemoryView::chartPoints(const MemoryModel& m, bool timed, int columns, std::size_t streams) {
  ChartPoints c;
  c.timed = timed;
  c.unit = chart_unit(std::max({m.arena_bytes, m.sequential_arena_bytes, m.concurrent_bound_bytes, std::int64_t{1}}));
  GrowthChart::Data& d = c.data;
  d.columns = columns;
  if (!m.computed) return c;
  const double unit = c.unit.bytes;
  // Decimated to the plot's pixel columns: a column keeps its peak (issue 16: a frame draws at
  // most two points a column; issue 45: the chart's own width, not a fixed 2048).
  const auto keep = [&](QList<QPointF> pts) { return decimate_columns(std::move(pts), d.xmax, columns); };
  if (timed) {
    d.xmax = std::max({m.current.makespan_us, m.sequential.makespan_us, 1e-6});
    d.points.push_back(keep(time_points(m.current.live_over_time, m.current.makespan_us, unit)));
    d.points.push_back(keep(time_points(m.current.high_water_over_time, m.current.makespan_us, unit)));
    d.points.push_back(keep(time_points(m.sequential.live_over_time, m.sequential.makespan_us, unit)));
    d.points.push_back(keep(time_points(m.sequential.high_water_over_time, m.sequential.makespan_us, unit)));
  } else {
    d.xmax = std::max<double>(1, static_cast<double>(m.current.live_bytes.size()));
    d.points.push_back(keep(step_points(m.current.live_bytes, unit)));
    d.points.push_back(keep(step_points(m.current.high_water, unit)));
    d.points.push_back(keep(step_points(m.sequential.live_bytes, unit)));
    d.points.push_back(keep(step_points(m.sequential.high_water, unit)));
  }
  const double cb = static_cast<double>(m.concurrent_bound_bytes) / unit;
  const double lb = static_cast<double>(m.linear_bound_bytes) / unit;
  d.points.push_back({QPointF(0, cb), QPointF(d.xmax, cb)});
  d.points.push_back({QPointF(0, lb), QPointF(d.xmax, lb)});
  const double ymax = static_cast<double>(std::max({m.arena_bytes, m.sequential_arena_bytes, m.concurrent_bound_bytes,
                                                    std::int64_t{1}})) / unit;
  d.ymax = ymax * 1.08;
  d.x_title = timed ? MemoryView::tr("predicted time (µs)") : MemoryView::tr("step");
  d.y_title = c.unit.name;
  d.title = streams == 1 ? MemoryView::tr("Arena growth: current schedule (1 stream) vs sequential")
                         : MemoryView::tr("Arena growth: current schedule (%1 streams) vs sequential").arg(streams);
  return c;
}

namespace {

// A timeline's items alone: what adapting a memory report reads of a run.
std::optional<core::Timeline> items_of(const std::vector<core::Timeline>& runs, std::size_t i) {
  if (i >= runs.size()) return std::nullopt;
  core::Timeline t;
  t.stream_count = runs[i].stream_count;
  t.items = runs[i].items;
  return t;
}

}  // namespace

MemoryView::MemoryView(StudioDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  m_figures = new QLabel(this);
  m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_figures->setWordWrap(true);
  m_note = new QLabel(this);
  m_note->setWordWrap(true);
  // Always in the layout, a line high when empty: shown and hidden with each edit's re-planning
  // it changed the chart's and the offset map's height, and both drew their pictures again on
  // the GUI thread (issue 45).
  m_note->setMinimumHeight(m_note->fontMetrics().lineSpacing());
  m_axis = new QComboBox(this);
  m_axis->addItems({tr("x: steps"), tr("x: predicted time")});
  m_axis->setToolTip(tr("Plot against schedule steps or against simulated time"));
  connect(m_axis, &QComboBox::currentIndexChanged, this, [this](int i) { setOverTime(i == 1); });

  m_chart = new GrowthChart(this);
  const QColor current = stream_color(0), sequential(0x88, 0x88, 0x88);
  const auto pen = [](const QColor& color, double width, Qt::PenStyle style) {
    QPen p(color, width);
    p.setStyle(style);
    return p;
  };
  // Lines up to a pixel wide draw fast whatever their length (GrowthChart); the high-water
  // lines are step functions with few corners.
  m_chart->setLines({{tr("live"), pen(current, 1, Qt::SolidLine)},
                     {tr("high-water"), pen(current.darker(130), 2.4, Qt::SolidLine)},
                     {tr("live, sequential"), pen(sequential, 1, Qt::SolidLine)},
                     {tr("high-water, sequential"), pen(sequential.darker(130), 2.4, Qt::SolidLine)},
                     {tr("concurrent bound"), pen(critical_color(), 1, Qt::DashLine)},
                     {tr("sequential bound"), pen(QColor(0x59, 0xa1, 0x4f), 1, Qt::DotLine)}});
  // Small minimums: the dock shares the window's height with the strategy panel and the timeline,
  // and the three panes' minimums (560 px) made the window taller than its default 900 px.
  m_chart->setMinimumHeight(120);

  m_map = new OffsetMapView(doc, this);
  // Line the map's x axis up under the chart's plot area (both fill their splitter pane's width).
  connect(m_chart, &GrowthChart::plotAreaChanged, this,
          [this](const QRectF& plot) { m_map->setHorizontalMargins(plot.left(), m_chart->width() - plot.right()); });
  // Series decimated for another width: again for this one once a resize settles.
  m_redecimate.setSingleShot(true);
  m_redecimate.setInterval(150);
  connect(m_chart, &GrowthChart::plotColumnsChanged, &m_redecimate, qOverload<>(&QTimer::start));
  connect(&m_redecimate, &QTimer::timeout, this, &MemoryView::redecimate);

  auto* top = new QHBoxLayout;
  top->addWidget(m_figures, 1);
  top->addWidget(m_axis, 0, Qt::AlignTop);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(m_chart);
  split->addWidget(m_map);
  m_front = new FrontierView(doc, this);
  split->addWidget(m_front);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setStretchFactor(2, 2);
  split->setSizes({500, 330, 300});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(m_note);
  layout->addWidget(split, 1);

  connect(doc, &StudioDocument::scheduleChanged, this, &MemoryView::scheduleStale);
  connect(doc, &StudioDocument::modelChanged, this, &MemoryView::scheduleStale);
  connect(doc, &StudioDocument::studyChanged, this, &MemoryView::scheduleStale);
  connect(doc, &StudioDocument::memoryRepaired, this, &MemoryView::scheduleStale);
  connect(&m_adapt_watcher, &QFutureWatcher<Adapted>::finished, this, &MemoryView::takeAdapted);
  applyPalette();
  recompute();
}

MemoryView::~MemoryView() {
  if (m_adapt_running) m_adapt_watcher.waitForFinished();
  m_map->setModel(nullptr, false);
}

bool MemoryView::isReplanning() const { return m_doc->hasModel() && m_doc->studyPending(); }

const MemoryModel& MemoryView::model() {
  m_doc->waitForStudy();  // applies the study (studyChanged marks this view stale)
  if (m_stale) recompute();
  while (m_adapt_running) {
    m_adapt_watcher.waitForFinished();
    takeAdapted();
  }
  return m_model;
}

void MemoryView::scheduleStale() {
  m_stale = true;
  // Hidden (a background tab): adapt when shown instead of on every study.
  if (isVisible()) recompute();
}

void MemoryView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (m_stale) recompute();
}

void MemoryView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange && m_map) applyPalette();
}

void MemoryView::setOverTime(bool over_time) {
  m_over_time = over_time;
  const QSignalBlocker block(m_axis);
  m_axis->setCurrentIndex(over_time ? 1 : 0);
  rebuildChart();
}

void MemoryView::recompute() {
  m_stale = false;
  if (!m_doc->hasModel()) {
    m_model = MemoryModel{};
    m_model.note = "No model loaded";
    ++m_recomputes;
    rebuildChart();
    return;
  }
  const std::size_t nodes = m_doc->graph().node_count();
  if (auto bound = core::require_bound_dims(m_doc->graph(), "the memory plan"); !bound) {
    // Symbolic input dimensions: the study plans no memory (tensors of unknown size), re-planning or not.
    ++m_recomputes;
    m_model = MemoryModel{};
    m_model.note = tr("No memory plan: %1; File > Bind dimensions").arg(QString::fromStdString(bound.error().message)).toStdString();
    rebuildChart();
    return;
  }
  // The worker is re-planning: keep the previous schedule's figures, marked as such, unless this
  // schedule's repaired arena has arrived (shown below until the planners' replaces it).
  if (m_doc->studyPending() && !m_doc->arenaRepaired()) {
    showReplanning();
    return;
  }
  ++m_recomputes;
  // The document's study is the one the summary and `weft plan` report: adapt it, plan nothing here.
  if (nodes > kMemoryViewMaxNodes) {
    m_model = MemoryModel{};
    m_model.note = memory_cutoff_note(nodes, kMemoryViewMaxNodes);
  } else if (!m_doc->study()) {
    m_model = MemoryModel{};
    m_model.note = "The schedule cannot be planned: " + m_doc->studyError().toStdString();
  } else if (nodes > m_doc->asyncEditNodes() && m_doc->study()->memory && m_doc->memoryReport()) {
    // A large model's report is adapted in the worker (model and chart series: 10 ms at 100k);
    // the previous figures stay shown until it returns.
    m_adapt_dirty = true;
    if (!m_adapt_running) launchAdapt();
    return;
  } else {
    m_model = memory_model_from_study(m_doc->graph(), *m_doc->study(), core::launch_mode_of(m_doc->strategyOptions()));
    if (m_doc->arenaRepaired())
      m_model.note = tr("Optimising the arena... (shown: the previous plan repaired for this schedule, %n tensor(s) moved)",
                        nullptr, static_cast<int>(m_doc->study()->memory->repair_moved))
                         .toStdString();
  }
  rebuildChart();
}

void MemoryView::showReplanning() {
  m_note->setText(m_model.computed ? tr("Re-planning the arena... (figures below are for the previous schedule)")
                                   : tr("Re-planning the arena..."));
}

void MemoryView::launchAdapt() {
  struct Job {
    std::shared_ptr<const core::Graph> graph;
    std::shared_ptr<const core::MemoryReport> report;
    std::optional<core::Timeline> run, seq_run;
    bool over_time = false;
    OffsetMapView::BlocksInput blocks;
    int columns = 1;
    std::size_t streams = 1;
    GrowthChart::PictureInput picture;
  };
  auto job = std::make_shared<Job>();
  job->graph = m_doc->graphPtr();
  job->report = m_doc->memoryReport();
  job->run = items_of(m_doc->predictedRuns(), 0);
  job->seq_run = items_of(m_doc->predictedRuns(), core::launch_mode_of(m_doc->strategyOptions()) == core::LaunchMode::Graph ? 2 : 1);
  job->over_time = m_over_time;
  job->blocks = m_map->blocksInput();
  job->columns = m_chart->plotColumns();
  job->streams = m_doc->schedule().stream_count();
  job->picture = m_chart->pictureInput();
  const bool repaired = m_doc->arenaRepaired();
  const std::int64_t moved = repaired ? m_doc->study()->memory->repair_moved : 0;
  m_adapt_dirty = false;
  m_adapt_running = true;
  m_adapt_watcher.setFuture(QtConcurrent::run(worker_pool(), [job, repaired, moved] {
    Adapted a;
    a.model = memory_model_from_report(*job->graph, *job->report, job->run ? &*job->run : nullptr,
                                       job->seq_run ? &*job->seq_run : nullptr);
    if (repaired)
      a.model.note = MemoryView::tr("Optimising the arena... (shown: the previous plan repaired for this schedule, %n tensor(s) moved)",
                                    nullptr, static_cast<int>(moved))
                         .toStdString();
    const bool timed = job->over_time && a.model.hasTime();
    a.points = chartPoints(a.model, timed, job->columns, job->streams);
    a.points.picture = GrowthChart::renderLines(a.points.data, job->picture);
    a.blocks = OffsetMapView::renderBlocks(a.model, timed, job->blocks);
    a.blocks_plot = job->blocks.plot;
    return a;
  }));
}

void MemoryView::takeAdapted() {
  if (!m_adapt_running || !m_adapt_watcher.future().isFinished()) return;
  m_adapt_running = false;
  Adapted a = m_adapt_watcher.future().takeResult();
  const bool replanning = m_doc->studyPending() && !m_doc->arenaRepaired();
  if (m_adapt_dirty && !replanning) {
    // A newer report arrived while it ran: adapt that one instead.
    launchAdapt();
    return;
  }
  m_adapt_dirty = false;  // (re-planning: the next report asks again)
  m_model = std::move(a.model);
  m_points = std::move(a.points);
  rebuildChart();  // sets the offset map's model
  m_map->adoptBlocks(std::move(a.blocks), a.blocks_plot);
  if (replanning) showReplanning();
}

void MemoryView::rebuildChart() {
  const MemoryModel& m = m_model;
  const bool timed = m_over_time && m.hasTime();
  m_axis->setEnabled(m.computed && m.hasTime());
  m_note->setText(QString::fromStdString(m.note));
  m_figures->setText(figuresText());
  m_map->setModel(&m_model, timed);
  // One unit for the whole chart, from its largest figure; the data as the worker made it when
  // it did for this axis, a move (made for another width when the chart was resized meanwhile:
  // shown, and decimated again once the resize settles, redecimate).
  const bool worker = m_points && m_points->timed == timed;
  ChartPoints c = worker ? std::move(*m_points)
                         : chartPoints(m, timed, m_chart->plotColumns(), m_doc->hasModel() ? m_doc->schedule().stream_count() : 0);
  m_points.reset();
  m_unit = c.unit;
  m_chart->setData(std::move(c.data), std::move(c.picture));
}

void MemoryView::redecimate() {
  if (!m_model.computed || m_chart->data().points.empty()) return;
  // A large model's series are made again in the worker (with its picture), a small one's here.
  if (m_doc->hasModel() && m_doc->graph().node_count() > m_doc->asyncEditNodes() && m_doc->memoryReport()) {
    m_stale = true;
    if (isVisible()) recompute();
  } else {
    rebuildChart();
  }
}

QString MemoryView::figuresText() const {
  const MemoryModel& m = m_model;
  if (!m.computed) return tr("Memory: not computed");
  return tr("Arena %1 (%2) · sequential %3 · concurrent bound %4 · sequential bound %5 · "
            "<b>price of concurrency %6×</b> · no reuse %7")
      .arg(format_bytes_fine(m.arena_bytes), QString::fromStdString(m.planner), format_bytes_fine(m.sequential_arena_bytes),
           format_bytes_fine(m.concurrent_bound_bytes), format_bytes_fine(m.linear_bound_bytes))
      .arg(m.price_of_concurrency, 0, 'f', 2)
      .arg(format_bytes_fine(m.no_reuse_bytes));
}

void MemoryView::applyPalette() {
  m_chart->update();
  m_map->update();
}

}  // namespace weft::ui
