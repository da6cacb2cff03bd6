#include "weft/ui/strategy_panel.h"

#include "weft/core/graph/fused_node.h"
#include "weft/ui/worker_pool.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>

#include "weft/core/strategy/registry.h"
#include "weft/core/study/memory_budget.h"
#include "weft/core/study/schedule_study.h"
#include "weft/ui/load_job.h"
#include "weft/ui/studio_document.h"

namespace weft::ui {
namespace {

bool is_iterative(const QString& name) {
  for (const core::StrategyInfo& s : core::strategy_list())
    if (QString::fromStdString(s.name) == name) return s.iterative;
  return false;
}

}  // namespace

StrategyPanel::StrategyPanel(StudioDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  auto* form = new QFormLayout;
  m_strategy = new QComboBox(this);
  for (const core::StrategyInfo& s : core::strategy_list()) {
    m_strategy->addItem(QString::fromStdString(s.name));
    m_strategy->setItemData(m_strategy->count() - 1, QString::fromStdString(s.description), Qt::ToolTipRole);
  }
  m_strategy->setCurrentText(default_strategy());
  m_cap = new QSpinBox(this);
  m_cap->setRange(1, 64);
  m_cap->setValue(core::kDefaultMaxStreams);
  m_cap->setToolTip(tr("Most streams to use; the hardware has 8 work queues by default"));
  m_grain = new QDoubleSpinBox(this);
  m_grain->setRange(-1, 10000);
  m_grain->setDecimals(1);
  m_grain->setSuffix(tr(" µs"));
  m_grain->setSpecialValueText(tr("automatic"));
  m_grain->setValue(-1);
  m_grain->setToolTip(tr("Operators shorter than this stay on a producer's stream"));
  form->addRow(tr("Strategy"), m_strategy);
  form->addRow(tr("Stream cap"), m_cap);
  m_launch = new QComboBox(this);
  m_launch->addItem(tr("eager launches"));
  m_launch->addItem(tr("CUDA Graph replay"));
  m_launch->setToolTip(tr("Eager: every cross-stream event costs host time, so automatic granularity keeps short "
                          "operators together. CUDA Graph: dependencies are graph edges, automatic granularity is 0; "
                          "predictions use graph replay."));
  form->addRow(tr("Granularity"), m_grain);
  form->addRow(tr("Launch"), m_launch);
  m_memory_budget = new QLineEdit(this);
  m_memory_budget->setPlaceholderText(tr("none (e.g. 4MiB)"));
  m_memory_budget->setToolTip(tr("Largest arena the schedule may plan: orders live ranges or merges streams until it fits, "
                                 "and says what that cost in predicted time. Refused below the sequential order's arena."));
  form->addRow(tr("Memory budget"), m_memory_budget);
  m_search_budget = new QSpinBox(this);
  m_search_budget->setRange(10, 3'600'000);
  m_search_budget->setSingleStep(500);
  m_search_budget->setValue(static_cast<int>(core::StrategyOptions{}.search_budget_ms));
  m_search_budget->setSuffix(tr(" ms"));
  m_search_budget->setToolTip(tr("Time the search may take; Cancel stops it earlier and keeps the best schedule found"));
  form->addRow(tr("Search budget"), m_search_budget);
  m_merge = new QCheckBox(tr("merge equal operators"), this);
  m_merge->setToolTip(tr("Horizontal merging (weft ... --merge): operators of one layer with the same operator, attributes "
                         "and shapes run as one launch. Re-opens the model as its merged graph; the summary shows the "
                         "launches before and after."));
  form->addRow(tr("Merging"), m_merge);
  connect(m_merge, &QCheckBox::toggled, this, &StrategyPanel::mergeRequested);
  m_fuse = new QCheckBox(tr("fuse Conv chains"), this);
  m_fuse->setToolTip(tr("Vertical fusion (weft ... --fuse): each Conv with the Relu, Clip, LeakyRelu or residual Add "
                        "applied to its result alone becomes one node (\"Conv+Add+Relu\"), run as one oneDNN primitive "
                        "with post-ops. Re-opens the model as its fused graph, before any merge (merging then groups "
                        "the unfused operators)."));
  form->addRow(tr("Fusion"), m_fuse);
  connect(m_fuse, &QCheckBox::toggled, this, &StrategyPanel::fuseRequested);
  m_apply = new QPushButton(tr("Apply"), this);
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setToolTip(tr("Stop the search and apply the best schedule it found so far; a memory-budget fit stops "
                          "without applying anything"));
  m_progress = new QProgressBar(this);
  m_progress->setRange(0, 1000);
  m_progress->setTextVisible(false);
  m_note = new QLabel(this);
  m_note->setWordWrap(true);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_apply);
  buttons->addWidget(m_cancel);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addLayout(buttons);
  layout->addWidget(m_progress);
  layout->addWidget(m_note);
  layout->addStretch();
  m_poll = new QTimer(this);
  m_poll->setInterval(100);
  connect(m_poll, &QTimer::timeout, this, &StrategyPanel::showProgress);
  connect(&m_watcher, &QFutureWatcher<SearchOutcome>::finished, this, &StrategyPanel::searchDone);
  connect(m_apply, &QPushButton::clicked, this, &StrategyPanel::apply);
  connect(m_cancel, &QPushButton::clicked, this, &StrategyPanel::cancelSearch);
  connect(m_strategy, &QComboBox::currentTextChanged, this, &StrategyPanel::updateControls);
  connect(m_cap, &QSpinBox::valueChanged, this, [this](int v) {
    m_note->setText(v > core::kDefaultMaxStreams ? tr("More than %1 streams: the GPU has %1 hardware queues by default; "
                                                      "extra streams share them.")
                                                       .arg(core::kDefaultMaxStreams)
                                                 : QString());
  });
  // An undo or redo across strategies in other settings: the panel shows what the schedule was made with.
  connect(doc, &StudioDocument::strategyOptionsChanged, this, [this] {
    m_cap->setValue(m_doc->strategyOptions().max_streams);
    m_grain->setValue(m_doc->strategyOptions().granularity_us);
    m_launch->setCurrentIndex(m_doc->strategyOptions().cuda_graph ? 1 : 0);
    if (const int i = m_strategy->findText(QString::fromStdString(m_doc->schedule().strategy)); i >= 0) m_strategy->setCurrentIndex(i);
  });
  connect(doc, &StudioDocument::modelChanged, this, [this] {
    m_cap->setValue(m_doc->strategyOptions().max_streams);
    m_grain->setValue(m_doc->strategyOptions().granularity_us);
    m_launch->setCurrentIndex(m_doc->strategyOptions().cuda_graph ? 1 : 0);
    m_strategy->setCurrentText(QString::fromStdString(m_doc->schedule().strategy));
    const QSignalBlocker quiet(m_merge), quiet_fuse(m_fuse);  // showing the loaded state is no request
    // A fused model holds its fusion where merges are kept: merging is on where merged nodes are.
    m_merge->setChecked(m_doc->isMerged() && (!m_doc->isFused() || core::count_merged_nodes(m_doc->graph()) > 0));
    m_fuse->setChecked(m_doc->isFused());
  });
  updateControls();
}

StrategyPanel::~StrategyPanel() {
  // The worker holds copies of what it reads, but the watcher must not outlive its future's
  // thread mid-run: stop the search and wait for it.
  if (m_state) m_state->cancel = true;
  m_watcher.waitForFinished();
}

void StrategyPanel::updateControls() {
  const bool running = searching();
  const bool iterative = is_iterative(m_strategy->currentText());
  m_search_budget->setEnabled(iterative && !running);
  m_apply->setEnabled(!running);
  m_strategy->setEnabled(!running);
  m_cancel->setVisible(running);
  m_progress->setVisible(running);
}

bool StrategyPanel::apply() {
  if (searching() || !m_doc->hasModel()) return false;
  core::StrategyOptions opt;
  opt.max_streams = m_cap->value();
  opt.granularity_us = m_grain->value();
  opt.cuda_graph = m_launch->currentIndex() == 1;
  std::int64_t budget = 0;
  if (const QString text = m_memory_budget->text().trimmed(); !text.isEmpty()) {
    auto bytes = core::parse_byte_size(text.toStdString());
    if (!bytes) {
      m_note->setText(tr("Refused: %1").arg(QString::fromStdString(bytes.error().message)));
      return false;
    }
    budget = *bytes;
  }
  const QString name = m_strategy->currentText();
  const bool iterative = is_iterative(name);
  if (!iterative && budget <= 0) {
    // A fixed strategy without a budget is fast: applied at once, on this thread.
    const bool ok = m_doc->applyStrategy(name, opt);
    m_note->setText(ok ? tr("Applied %1 (Ctrl+Z undoes).").arg(name) : tr("Refused: %1").arg(m_doc->lastRefusal()));
    return ok;
  }
  // A search, or any strategy fitted to a memory budget (a plan and simulations per step): in the
  // worker, with progress and Cancel; the result is applied when it arrives.
  if (iterative) opt.search_budget_ms = m_search_budget->value();
  auto state = std::make_shared<Progress>();
  if (iterative)
    opt.progress = [state](double fraction, double best_us) {
      state->fraction = fraction;
      state->best_us = best_us;
      return !state->cancel.load();
    };
  m_state = state;
  m_running = true;
  m_search_graph = m_doc->graphPtr();
  m_search_options = opt;
  m_search_name = name;
  // The worker owns copies of the costs and device and shares the immutable graph, so edits or a
  // new model on the GUI thread meanwhile cannot touch what it reads. With a memory budget the
  // schedule is fitted as `weft schedule --memory-budget` fits it (core::make_schedule, then
  // core::fit_strategy_schedule, here with the fit's phase and cancel in between).
  m_watcher.setFuture(QtConcurrent::run(worker_pool(), [graph = m_search_graph, costs = m_doc->analysis().costs,
                                         device = m_doc->device(), opt, budget, strategy = name.toStdString(), state]() {
    SearchOutcome out;
    out.schedule = core::make_schedule(strategy, *graph, costs, device, opt);
    if (!out.schedule || budget <= 0) return out;
    core::BudgetOptions b;
    b.budget_bytes = budget;
    b.mode = core::launch_mode_of(opt);
    b.cancelled = [state] { return state->cancel_fit.load(); };
    state->fitting = true;
    auto fit = core::fit_strategy_schedule(strategy, *graph, costs, device, opt, std::move(*out.schedule), b);
    if (!fit) {
      out.schedule = fit.error();
      return out;
    }
    out.budget_note = fit->summary();
    out.schedule = std::move(fit->schedule);
    return out;
  }));
  m_progress->setRange(0, iterative ? 1000 : 0);  // a fit has no fraction: a busy bar
  m_progress->setValue(0);
  m_note->setText(iterative ? tr("Searching (%1 ms budget)...").arg(m_search_budget->value())
                            : tr("Fitting %1 to the memory budget...").arg(name));
  m_poll->start();
  updateControls();
  return true;
}

QString StrategyPanel::noteText() const { return m_note->text(); }

void StrategyPanel::cancelSearch() {
  if (!searching() || !m_state) return;
  // A fixed strategy's Apply with a budget is all fit: stop it even before the fit has begun.
  if (m_state->fitting || !is_iterative(m_search_name)) {
    m_state->cancel_fit = true;
    m_note->setText(tr("Stopping the memory-budget fit: nothing will be applied..."));
    return;
  }
  m_state->cancel = true;
  m_note->setText(tr("Stopping: the best schedule found so far will be applied..."));
}

void StrategyPanel::showProgress() {
  if (!m_state || m_state->cancel_fit) return;
  if (m_state->fitting) {
    m_progress->setRange(0, 0);
    m_note->setText(tr("Fitting %1 to the memory budget...").arg(m_search_name));
    return;
  }
  if (m_state->cancel) return;
  m_progress->setValue(static_cast<int>(std::lround(1000 * std::clamp(m_state->fraction.load(), 0.0, 1.0))));
  const double best = m_state->best_us;
  if (best > 0) m_note->setText(tr("Searching: best predicted %1 µs so far").arg(best, 0, 'f', 1));
}

void StrategyPanel::searchDone() {
  m_poll->stop();
  m_running = false;
  m_progress->setRange(0, 1000);
  const bool cancelled = m_state && m_state->cancel;
  const bool fit_cancelled = m_state && m_state->cancel_fit;
  m_state.reset();
  SearchOutcome outcome = m_watcher.result();
  if (fit_cancelled) {
    m_search_graph.reset();
    m_note->setText(tr("Cancelled: the memory-budget fit of %1 stopped; nothing applied.").arg(m_search_name));
    updateControls();
    emit searchFinished(false);
    return;
  }
  const bool iterative = is_iterative(m_search_name);
  QString summary;
  if (outcome.schedule && iterative) {
    // The search states what it did in its options: where it started, the best it reached.
    const QString words = QString::fromStdString(outcome.schedule->options);
    summary = words.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(words);
  }
  const bool ok = m_doc->applyComputedStrategy(m_search_name, m_search_graph, std::move(outcome.schedule), m_search_options,
                                               QString::fromStdString(outcome.budget_note));
  m_search_graph.reset();
  QString note;
  if (!ok)
    note = tr("Refused: %1").arg(m_doc->lastRefusal());
  else if (iterative)
    note = tr("Applied %1, %2%3 (Ctrl+Z undoes).").arg(m_search_name, cancelled ? tr("stopped early") : tr("finished"), summary);
  else
    note = tr("Applied %1 (Ctrl+Z undoes).").arg(m_search_name);
  if (ok && !outcome.budget_note.empty())
    note += " " + tr("Memory budget: %1").arg(QString::fromStdString(outcome.budget_note));
  m_note->setText(note);
  updateControls();
  emit searchFinished(ok);
}

}  // namespace weft::ui
