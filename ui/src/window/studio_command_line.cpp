// weft-studio's command line: parsed into StudioOptions, then applied to a window by a session.
#include "weft/ui/studio_command_line.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QTimer>
#include <cstdio>
#include <utility>

#include "weft/core/onnx/dim_binding.h"
#include "weft/core/study/split_study.h"
#include "weft/ui/load_controller.h"
#include "weft/ui/main_window.h"
#include "weft/ui/run_controller.h"
#include "weft/ui/strategy_panel.h"
#include "weft/ui/summary_panel.h"
#include "weft/ui/synthetic_model.h"
#include "weft/ui/timeline_view.h"

namespace weft::ui {

namespace {

core::Error usage(const QString& message) { return core::make_error(core::ErrorKind::Usage, message.toStdString()); }

}  // namespace

core::Expected<StudioOptions> parse_studio_command_line(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription("Weft Studio: analyse and edit multi-stream schedules of ONNX models.");
  const QCommandLineOption help_option = parser.addHelpOption();
  const QCommandLineOption version_option = parser.addVersionOption();
  parser.addPositionalArgument("model", "ONNX model (.onnx), studio project (.weft) or schedule (.json) to open.");
  const QCommandLineOption screenshot("screenshot", "Render the window after loading to FILE.png and exit.", "file");
  const QCommandLineOption synthetic("synthetic", "Open a seeded synthetic model of N operators.", "n");
  const QCommandLineOption find("find", "After loading, select the first node whose name or operator matches.", "text");
  const QCommandLineOption size("size", "Window size for --screenshot, WxH (default 1600x1000).", "size", "1600x1000");
  const QCommandLineOption run("run", "After loading, run the schedule on BACKEND (cpu).", "backend");
  const QCommandLineOption show("show",
                                "Bring a docked view forward (timeline, memory, lanes, graph, ...); with --screenshot, "
                                "shoot it alone at --size. Default 'window': the whole window.",
                                "what", "window");
  const QCommandLineOption hybrid("hybrid", "Check Run ▸ Hybrid teams: CPU runs (--run cpu) give the nodes that run alone a team of every core.");
  const QCommandLineOption use_measured("use-measured", "After --run, calibrate the cost model with the measured times.");
  const QCommandLineOption range("range", "Select the time range T0:T1 (µs, or % of the longest run) in the timeline before the screenshot.", "t0:t1");
  const QCommandLineOption strategy("strategy", "Strategy of the first schedule (default: the studio's).", "name");
  const QCommandLineOption granularity("granularity", "Strategy granularity, µs (-1: automatic).", "us");
  const QCommandLineOption graph("graph", "Make and predict the first schedule for CUDA Graph replay.");
  const QCommandLineOption recover("recover",
                                   "Recover the unsaved edits a crashed session left without asking "
                                   "(also WEFT_RECOVER=accept; WEFT_RECOVER=discard drops them).");
  const QCommandLineOption memory_budget("memory-budget", "After loading, apply the strategy within an arena of BYTES (4MiB, 4MB, ...).", "bytes");
  const QCommandLineOption dim("dim",
                               "Bind a symbolic input dimension, as weft's --dim: NAME=VALUE (a dim_param) or "
                               "INPUT:AXIS=VALUE (one dim of one input). Repeatable.",
                               "binding");
  const QCommandLineOption merge("merge", "Open the model with horizontal merges (as weft's --merge).");
  const QCommandLineOption batch("batch", "Re-batch the model: dim 0 of every input set to N (as weft's --batch).", "n");
  const QCommandLineOption split("split",
                                 "Split the batch into K micro-batch copies, or auto: K chosen by prediction (as weft's "
                                 "--split); the first schedule is then split-overlap unless --strategy says otherwise.",
                                 "k|auto");
  const QCommandLineOption layers("layers",
                                  "Rows of the graph view: levels (ASAP, the default), wires (the wire layering by the "
                                  "head rule over the graph's chains, as weft layers) or streams (over the schedule's streams).",
                                  "how", "levels");
  const QCommandLineOption schedule("schedule",
                                    "Open schedule JSON (weft schedule -o FILE) on the model, split and merged as it records; "
                                    "without a model, on the model it names.",
                                    "file");
  const QCommandLineOption profile("profile",
                                   "Open the model with a measured profile (ONNX Runtime profiler JSON, PyTorch profiler or "
                                   "Weft Chrome trace), as weft's --profile: its node times replace the predictions.",
                                   "file");
  parser.addOptions({screenshot, synthetic, find, size, run, hybrid, show, use_measured, range, strategy, granularity, graph, recover,
                     memory_budget, dim, merge, batch, split, layers, schedule, profile});
  if (!parser.parse(arguments)) return usage(parser.errorText());

  StudioOptions o;
  o.help = parser.isSet(help_option);
  o.version = parser.isSet(version_option);
  o.help_text = parser.helpText();
  if (o.help || o.version) return o;
  using Layering = GraphView::Layering;
  const std::map<QString, Layering> layerings = {
      {"levels", Layering::Levels}, {"wires", Layering::GraphWires}, {"streams", Layering::ScheduleWires}};
  const auto layering = layerings.find(parser.value(layers));
  if (layering == layerings.end()) return usage(QString("--layers must be levels, wires or streams, got '%1'").arg(parser.value(layers)));
  o.layering = layering->second;
  if (parser.isSet(batch)) {
    bool ok = false;
    o.batch = parser.value(batch).toLongLong(&ok);
    if (!ok || o.batch <= 0) return usage(QString("--batch must be a positive integer, got '%1'").arg(parser.value(batch)));
  }
  if (parser.isSet(split)) {
    auto parsed = core::parse_split(parser.value(split).toStdString());
    if (!parsed) return usage(QString::fromStdString(parsed.error().message));
    o.split = *parsed;
  }
  for (const QString& d : parser.values(dim)) {
    auto binding = core::parse_dim_binding(d.toStdString());
    if (!binding) return usage(QString::fromStdString(binding.error().message));
    o.dims[binding->first] = binding->second;
  }
  if (const QStringList wh = parser.value(size).split('x'); wh.size() == 2 && wh[0].toInt() > 0 && wh[1].toInt() > 0)
    o.size = QSize(wh[0].toInt(), wh[1].toInt());
  else
    return usage(QString("--size must be WxH, got '%1'").arg(parser.value(size)));
  o.run = parser.value(run);
  if (parser.isSet(run) && o.run != "cpu") return usage("--run: only 'cpu' is available (this build has no CUDA executor)");
  if (parser.isSet(synthetic)) o.synthetic = parser.value(synthetic).toInt();
  if (parser.isSet(granularity)) o.granularity = parser.value(granularity).toDouble();
  if (!parser.positionalArguments().isEmpty()) o.path = parser.positionalArguments().front();
  o.schedule = parser.value(schedule);
  o.screenshot = parser.value(screenshot);
  o.show = parser.value(show);
  o.range = parser.value(range);
  o.find = parser.value(find);
  o.use_measured = parser.isSet(use_measured);
  o.hybrid = parser.isSet(hybrid);
  o.strategy = parser.value(strategy);
  o.graph = parser.isSet(graph);
  o.recover = parser.isSet(recover);
  o.memory_budget = parser.value(memory_budget);
  o.merge = parser.isSet(merge);
  o.profile = parser.value(profile);
  if (!o.profile.isEmpty() && (o.synthetic || !o.schedule.isEmpty() || o.path.isEmpty() || !o.path.endsWith(".onnx", Qt::CaseInsensitive)))
    return usage("--profile goes with an ONNX model to open (weft-studio MODEL.onnx --profile FILE)");
  return o;
}

StudioSession::StudioSession(MainWindow& window, StudioOptions options)
    : QObject(&window), m_window(window), m_options(std::move(options)) {}

bool StudioSession::start() {
  configure();
  connect(&m_window, &MainWindow::loadFinished, this, [this](bool ok, const QString& msg) {
    // What follows the load waits for a --memory-budget Apply, which fits in the strategy panel's
    // worker as every budgeted Apply does.
    if (!ok || m_options.memory_budget.isEmpty()) return afterLoad(ok, msg);
    m_load_message = msg;
    if (m_window.strategyPanel()->apply()) return;  // continues when it has fitted
    m_budget_applied = true;
    std::fprintf(stderr, "%s\n", qPrintable(m_window.strategyPanel()->noteText()));
    afterLoad(true, msg);
  });
  arrangeBudget();
  open();
  if (!m_options.find.isEmpty())
    m_after_load.push_back([this](bool ok, const QString&) {
      if (ok) m_window.findNode(m_options.find);
    });
  if (m_options.show != "window" && m_options.show != "timeline" && !m_window.showView(m_options.show))
    std::fprintf(stderr, "no view named '%s'\n", qPrintable(m_options.show));
  arrangeRun();
  // Edits a crashed session autosaved: offered back (never in a screenshot run).
  if (m_options.screenshot.isEmpty())
    m_window.loads()->offerRecovery(m_options.recover ? LoadController::RecoveryChoice::Accept : LoadController::RecoveryChoice::Ask);
  else
    arrangeScreenshot();
  return true;
}

void StudioSession::configure() {
  m_window.graphView()->setLayering(m_options.layering);
  m_window.loads()->setDimBindings(m_options.dims);
  m_window.loads()->setBatchSplit(m_options.batch, m_options.split);
  if (m_options.merge) m_window.strategyPanel()->mergeBox()->setChecked(true);
  if (!m_options.profile.isEmpty()) m_window.loads()->setProfileForNextModel(m_options.profile);
  if (!m_options.screenshot.isEmpty()) {
    m_window.loads()->setAskForDims(false);  // a screenshot run shows the model as bound on the command line
    m_window.resize(m_options.size);
  }
  m_window.show();
  StrategyPanel* panel = m_window.strategyPanel();
  if (!m_options.strategy.isEmpty()) panel->strategyBox()->setCurrentText(m_options.strategy);
  else if (m_options.split >= 0) panel->strategyBox()->setCurrentText(QString::fromLatin1(core::kSplitOverlap));
  if (m_options.granularity) panel->granularity()->setValue(*m_options.granularity);
  if (m_options.graph) panel->launchMode()->setCurrentIndex(1);
  // A configuration asked for on the command line is what opens, not the advice's.
  if (!m_options.strategy.isEmpty() || m_options.granularity || m_options.graph || m_options.split >= 0) m_window.loads()->pinOpeningConfiguration();
}

void StudioSession::open() {
  if (m_options.synthetic) {
    const int n = *m_options.synthetic;
    m_window.openGraph(QString("synthetic-%1").arg(n), [n] { return make_synthetic_graph(n, 1); });
    m_loading = true;
  } else if (!m_options.schedule.isEmpty()) {
    if (m_options.split >= 0 || m_options.merge)
      std::fprintf(stderr, "weft-studio: --schedule: the split and merges the file records apply; --split and --merge are not used\n");
    m_window.openSchedule(m_options.schedule, m_options.path);
    m_loading = m_window.isLoading();
    if (!m_loading) std::fprintf(stderr, "%s\n", qPrintable(m_window.lastMessage()));  // refused before any load
  } else if (!m_options.path.isEmpty()) {
    m_window.openPath(m_options.path);
    m_loading = true;
  }
}

void StudioSession::afterLoad(bool ok, const QString& message) {
  for (const auto& f : m_after_load) f(ok, message);
}

void StudioSession::arrangeBudget() {
  if (m_options.memory_budget.isEmpty()) return;
  m_window.strategyPanel()->memoryBudget()->setText(m_options.memory_budget);
  connect(m_window.strategyPanel(), &StrategyPanel::searchFinished, this, [this](bool applied) {
    if (std::exchange(m_budget_applied, true)) return;
    if (!applied) std::fprintf(stderr, "%s\n", qPrintable(m_window.strategyPanel()->noteText()));
    afterLoad(true, m_load_message);
  });
}

void StudioSession::arrangeRun() {
  if (m_options.hybrid) m_window.runController()->setHybrid(true);
  if (m_options.run != "cpu") return;
  m_after_load.push_back([this](bool ok, const QString&) {
    if (ok) m_window.runOnCpu();
  });
  if (m_options.use_measured)
    connect(&m_window, &MainWindow::runFinished, this, [this](bool ok) {
      if (ok) m_window.useMeasuredTimes();
    });
}

void StudioSession::arrangeScreenshot() {
  const bool run_cpu = m_options.run == "cpu";
  if (m_loading && run_cpu) {
    connect(&m_window, &MainWindow::runFinished, this, [this](bool, const QString& msg) {
      std::fprintf(stderr, "%s\n", qPrintable(msg));
      takeScreenshot();
    });
    m_after_load.push_back([this](bool ok, const QString& msg) {
      if (ok) return;  // the run's end takes the shot
      std::fprintf(stderr, "%s\n", qPrintable(msg));
      takeScreenshot();
    });
  } else if (m_loading) {
    m_after_load.push_back([this](bool ok, const QString& msg) {
      if (!ok) std::fprintf(stderr, "%s\n", qPrintable(msg));
      takeScreenshot();
    });
  } else {
    takeScreenshot();
  }
}

void StudioSession::takeScreenshot() {
  // --show VIEW: float that dock at --size and shoot it alone.
  QDockWidget* dock = m_options.show == "window" ? nullptr : m_window.findChild<QDockWidget*>(m_options.show + "Dock");
  if (dock) {
    dock->show();
    dock->setFloating(true);
    dock->resize(m_options.size);
  }
  if (m_options.show == "timeline") m_window.timelineView()->fit();
  if (const QStringList range = m_options.range.split(':'); range.size() == 2) {
    // "40%" is a share of the longest run.
    auto at = [this](QString v) {
      const bool share = v.endsWith('%');
      if (share) v.chop(1);
      return share ? v.toDouble() / 100 * m_window.timelineView()->axis().extent() : v.toDouble();
    };
    m_window.timelineView()->setRange(at(range[0]), at(range[1]));
  }
  QTimer::singleShot(300, this, [this, dock] {
    // The picture of the whole study: its prediction and its memory report, not "Predicting...".
    m_window.document()->waitForStudy();
    m_window.summaryPanel()->waitForAdvice();  // a large model's advice, computed after the first paint
    m_window.graphView()->waitForOverview();   // a large graph's picture, rendered in the worker
    QCoreApplication::processEvents();
    QWidget* target = dock ? static_cast<QWidget*>(dock) : static_cast<QWidget*>(&m_window);
    const bool ok = target->grab().save(m_options.screenshot);
    std::fprintf(stderr, "%s %s\n", ok ? "wrote" : "could not write", qPrintable(m_options.screenshot));
    QApplication::exit(ok ? 0 : 4);
  });
}

}  // namespace weft::ui
