#include "weft/ui/sweep_view.h"
#include "weft/ui/worker_pool.h"

#include <QChart>
#include <QChartView>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPushButton>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>

#include "weft/core/strategy/strategies.h"
#include "weft/ui/stream_colors.h"
#include "weft/ui/studio_document.h"

namespace weft::ui {

SweepView::SweepView(StudioDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  m_batches = new QLineEdit("1,2,4,8,16,32", this);
  m_batches->setToolTip(tr("Batch sizes, comma-separated (as weft sweep --batches)"));
  m_run = new QPushButton(tr("Sweep"), this);
  m_run->setToolTip(tr("Import the model at each batch and predict every fixed strategy there (weft sweep MODEL --batches ...)"));
  m_note = new QLabel(this);
  m_note->setWordWrap(true);
  m_note->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  m_chart = new QChart;
  m_chart->legend()->setAlignment(Qt::AlignRight);
  m_view = new QChartView(m_chart, this);
  m_view->setRenderHint(QPainter::Antialiasing);
  m_view->setMinimumHeight(120);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Batches"), this));
  top->addWidget(m_batches, 1);
  top->addWidget(m_run);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(m_note);
  layout->addWidget(m_view, 1);
  connect(m_run, &QPushButton::clicked, this, &SweepView::run);
  connect(m_batches, &QLineEdit::returnPressed, this, &SweepView::run);
  connect(&m_watcher, &QFutureWatcher<core::Expected<std::vector<core::SweepPoint>>>::finished, this, &SweepView::takeResult);
  connect(doc, &StudioDocument::modelChanged, this, [this] {
    m_points.clear();
    showPoints();
    setNote(tr("Sweep the model's batch: predicted speedup of each strategy at each batch size."));
  });
  setNote(tr("Open a model, then sweep its batch."));
}

SweepView::~SweepView() { m_watcher.waitForFinished(); }

QString SweepView::note() const { return m_note->text(); }

void SweepView::setNote(const QString& text) { m_note->setText(text); }

bool SweepView::run() {
  if (isRunning()) return false;
  if (!m_doc->hasModel() || m_doc->modelPath().isEmpty() || !QFileInfo::exists(m_doc->modelPath())) {
    setNote(tr("The sweep re-imports the model file: open a model file first."));
    return false;
  }
  core::SweepOptions options;
  for (const QString& part : m_batches->text().split(',', Qt::SkipEmptyParts)) {
    bool ok = false;
    const qlonglong b = part.trimmed().toLongLong(&ok);
    if (!ok || b <= 0) {
      setNote(tr("Batches must be positive integers, got '%1'").arg(part.trimmed()));
      return false;
    }
    options.batches.push_back(b);
  }
  if (options.batches.empty()) {
    setNote(tr("Type at least one batch size"));
    return false;
  }
  // The document's dim bindings, less the batch (a symbol at dim 0 of an input, kept by the Dim
  // after binding): the sweep binds that one at each batch.
  const core::Graph& g = m_doc->graph();
  options.import.dims = m_doc->dimBindings();
  for (core::TensorId t : g.inputs()) {
    const core::Tensor& in = g.tensor(t);
    if (in.dims.empty()) continue;
    options.import.dims.erase(in.name + ":0");
    if (!in.dims[0].symbol.empty() && m_doc->dimBindings().count(in.dims[0].symbol)) {
      options.import.dims.erase(in.dims[0].symbol);
      options.batch_dim = in.dims[0].symbol;
    }
  }
  options.device = m_doc->device();
  options.strategy = m_doc->strategyOptions();
  options.mode = core::launch_mode_of(options.strategy);
  setNote(tr("Sweeping %1 batches...").arg(options.batches.size()));
  m_run->setEnabled(false);
  m_watcher.setFuture(QtConcurrent::run(worker_pool(), [path = m_doc->modelPath().toStdString(), options] { return core::sweep(path, options); }));
  return true;
}

void SweepView::takeResult() {
  m_run->setEnabled(true);
  auto result = m_watcher.result();
  if (!result) {
    m_points.clear();
    showPoints();
    setNote(QString::fromStdString(result.error().message));
    emit sweepFinished(false);
    return;
  }
  m_points = std::move(*result);
  showPoints();
  setNote(tr("Predicted speedup over the reference schedule on %1 (%2), %3 points: the chart weft sweep --png draws.")
              .arg(QString::fromStdString(m_doc->device().name),
                   m_points.empty() ? QString() : QString::fromStdString(m_points.front().mode))
              .arg(m_points.size()));
  emit sweepFinished(true);
}

void SweepView::showPoints() {
  m_chart->removeAllSeries();
  for (QAbstractAxis* a : m_chart->axes()) {
    m_chart->removeAxis(a);
    delete a;
  }
  if (m_points.empty()) return;
  auto* x = new QLogValueAxis;
  x->setBase(2);
  x->setLabelFormat("%d");
  x->setTitleText(tr("batch"));
  auto* y = new QValueAxis;
  y->setTitleText(tr("speedup"));
  y->setLabelFormat("%.2fx");
  m_chart->addAxis(x, Qt::AlignBottom);
  m_chart->addAxis(y, Qt::AlignLeft);
  std::vector<std::string> strategies;
  double lo = 1.0, hi = 1.0;
  std::int64_t bmin = m_points.front().batch, bmax = bmin;
  for (const core::SweepPoint& p : m_points) {
    if (std::find(strategies.begin(), strategies.end(), p.strategy) == strategies.end()) strategies.push_back(p.strategy);
    lo = std::min(lo, p.predicted_speedup);
    hi = std::max(hi, p.predicted_speedup);
    bmin = std::min(bmin, p.batch);
    bmax = std::max(bmax, p.batch);
  }
  for (std::size_t s = 0; s < strategies.size(); ++s) {
    auto* series = new QLineSeries;
    series->setName(QString::fromStdString(strategies[s]));
    series->setPointsVisible(true);
    QPen pen(stream_color(static_cast<int>(s)));
    pen.setWidthF(2.5);
    series->setPen(pen);
    std::vector<QPointF> xy;
    for (const core::SweepPoint& p : m_points)
      if (p.strategy == strategies[s]) xy.emplace_back(static_cast<double>(p.batch), p.predicted_speedup);
    std::sort(xy.begin(), xy.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
    for (const QPointF& pt : xy) series->append(pt);
    m_chart->addSeries(series);
    series->attachAxis(x);
    series->attachAxis(y);
  }
  // 1.0x: the reference schedule.
  auto* unity = new QLineSeries;
  unity->setName(tr("1.0x"));
  QPen dashed(QColor(150, 150, 150));
  dashed.setStyle(Qt::DashLine);
  dashed.setWidthF(1.5);
  unity->setPen(dashed);
  unity->append(static_cast<double>(bmin), 1.0);
  unity->append(static_cast<double>(bmax), 1.0);
  m_chart->addSeries(unity);
  unity->attachAxis(x);
  unity->attachAxis(y);
  const double span = std::max(0.1, hi - lo);
  y->setRange(std::max(0.0, lo - 0.08 * span), hi + 0.08 * span);
  x->setRange(static_cast<double>(bmin) / 1.2, static_cast<double>(bmax) * 1.2);
}

}  // namespace weft::ui
