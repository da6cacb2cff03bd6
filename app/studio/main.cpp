// weft-studio: the desktop front end.
//   weft-studio [MODEL.onnx | PROJECT.weft] [--screenshot FILE.png] [--synthetic N]
//               [--run cpu [--use-measured]] [--show timeline | VIEW] [--range T0:T1]
//               [--strategy NAME] [--granularity US] [--graph] [--recover]
//               [--dim NAME=VALUE | --dim INPUT:AXIS=VALUE]... [--merge] [--batch N] [--split K|auto]
//               [--layers levels|wires|streams]
// --screenshot renders the window once the model has loaded and its study has arrived (and a
// --memory-budget Apply has fitted; with --run cpu, once the run has finished), writes the PNG and exits (for docs and checks; use QT_QPA_PLATFORM=offscreen
// without a display). --show VIEW (timeline, memory, lanes, graph, ...) brings that dock forward;
// with --screenshot it floats the dock at --size and shoots it alone; --range selects a time range (µs) in it; --use-measured calibrates the cost model after the run.
#include <QApplication>
#include <QCheckBox>
#include <QLineEdit>
#include <QComboBox>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QTimer>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "weft/core/dim_binding.h"
#include "weft/core/study/split_study.h"

#include "weft/ui/graph_view.h"
#include "weft/ui/main_window.h"
#include "weft/ui/properties_panel.h"
#include "weft/ui/strategy_panel.h"
#include "weft/ui/summary_panel.h"
#include "weft/ui/summary_panel.h"
#include "weft/ui/synthetic_model.h"
#include "weft/ui/timeline_view.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  // Settings live under organisation "Weft", application "Weft Studio".
  QApplication::setApplicationName("Weft Studio");
  QApplication::setOrganizationName("Weft");
  QApplication::setApplicationVersion(WEFT_VERSION);

  QCommandLineParser parser;
  parser.setApplicationDescription("Weft Studio: analyse and edit multi-stream schedules of ONNX models.");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("model", "ONNX model (.onnx) or studio project (.weft) to open.");
  const QCommandLineOption screenshot("screenshot", "Render the window after loading to FILE.png and exit.", "file");
  const QCommandLineOption synthetic("synthetic", "Open a seeded synthetic model of N operators.", "n");
  const QCommandLineOption find("find", "After loading, select the first node whose name or operator matches.", "text");
  const QCommandLineOption size("size", "Window size for --screenshot, WxH (default 1600x1000).", "size", "1600x1000");
  const QCommandLineOption run("run", "After loading, run the schedule on BACKEND (cpu).", "backend");
  const QCommandLineOption show("show",
                                "Bring a docked view forward (timeline, memory, lanes, graph, ...); with --screenshot, "
                                "shoot it alone at --size. Default 'window': the whole window.",
                                "what", "window");
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
  parser.addOptions({screenshot, synthetic, find, size, run, show, use_measured, range, strategy, granularity, graph, recover,
                     memory_budget, dim, merge, batch, split, layers, schedule});
  parser.process(app);
  using Layering = weft::ui::GraphView::Layering;
  const std::map<QString, Layering> layerings = {
      {"levels", Layering::Levels}, {"wires", Layering::GraphWires}, {"streams", Layering::ScheduleWires}};
  const auto layering = layerings.find(parser.value(layers));
  if (layering == layerings.end()) {
    std::fprintf(stderr, "weft-studio: error: --layers must be levels, wires or streams, got '%s'\n", qPrintable(parser.value(layers)));
    return 1;
  }
  std::int64_t batch_size = 0;
  if (parser.isSet(batch)) {
    bool ok = false;
    batch_size = parser.value(batch).toLongLong(&ok);
    if (!ok || batch_size <= 0) {
      std::fprintf(stderr, "weft-studio: error: --batch must be a positive integer, got '%s'\n", qPrintable(parser.value(batch)));
      return 1;
    }
  }
  int split_k = -1;
  if (parser.isSet(split)) {
    auto parsed = weft::core::parse_split(parser.value(split).toStdString());
    if (!parsed) {
      std::fprintf(stderr, "weft-studio: error: %s\n", parsed.error().message.c_str());
      return 1;
    }
    split_k = *parsed;
  }
  std::map<std::string, std::int64_t> dims;
  for (const QString& d : parser.values(dim)) {
    auto binding = weft::core::parse_dim_binding(d.toStdString());
    if (!binding) {
      std::fprintf(stderr, "weft-studio: error: %s\n", binding.error().message.c_str());
      return 1;
    }
    dims[binding->first] = binding->second;
  }

  weft::ui::MainWindow window;
  window.graphView()->setLayering(layering->second);
  window.setDimBindings(std::move(dims));
  window.setBatchSplit(batch_size, split_k);
  if (parser.isSet(merge)) window.strategyPanel()->mergeBox()->setChecked(true);
  const QString shot = parser.value(screenshot);
  if (!shot.isEmpty()) window.setAskForDims(false);  // a screenshot run shows the model as bound on the command line
  if (!shot.isEmpty()) {
    const QStringList wh = parser.value(size).split('x');
    if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
  }
  window.show();
  if (parser.isSet(strategy)) window.strategyPanel()->strategyBox()->setCurrentText(parser.value(strategy));
  else if (split_k >= 0) window.strategyPanel()->strategyBox()->setCurrentText(QString::fromLatin1(weft::core::kSplitOverlap));
  if (parser.isSet(granularity)) window.strategyPanel()->granularity()->setValue(parser.value(granularity).toDouble());
  if (parser.isSet(graph)) window.strategyPanel()->launchMode()->setCurrentIndex(1);
  // A configuration asked for on the command line is what opens, not the advice's.
  if (parser.isSet(strategy) || parser.isSet(granularity) || parser.isSet(graph) || split_k >= 0) window.pinOpeningConfiguration();
  // What follows the load (--find, --run, the screenshot) waits for a --memory-budget Apply, which
  // fits in the strategy panel's worker as every budgeted Apply does.
  std::vector<std::function<void(bool, const QString&)>> after_load;
  const auto loaded = [&after_load](bool ok, const QString& msg) {
    for (const auto& f : after_load) f(ok, msg);
  };
  const bool budgeted = parser.isSet(memory_budget);
  bool budget_applied = false;  // once: later Applies in the session are the user's
  QString load_message;
  QObject::connect(&window, &weft::ui::MainWindow::loadFinished, &window,
                   [&window, &budget_applied, &load_message, budgeted, loaded](bool ok, const QString& msg) {
                     if (!ok || !budgeted) return loaded(ok, msg);
                     load_message = msg;
                     if (window.strategyPanel()->apply()) return;  // continues when it has fitted
                     budget_applied = true;
                     std::fprintf(stderr, "%s\n", qPrintable(window.strategyPanel()->noteText()));
                     loaded(true, msg);
                   });
  if (budgeted) {
    window.strategyPanel()->memoryBudget()->setText(parser.value(memory_budget));
    QObject::connect(window.strategyPanel(), &weft::ui::StrategyPanel::searchFinished, &window,
                     [&window, &budget_applied, &load_message, loaded](bool applied) {
                       if (std::exchange(budget_applied, true)) return;
                       if (!applied) std::fprintf(stderr, "%s\n", qPrintable(window.strategyPanel()->noteText()));
                       loaded(true, load_message);
                     });
  }

  // --show VIEW with --screenshot: float that dock at --size and shoot it alone.
  const QString show_view = parser.value(show);
  const bool timeline_only = show_view == "timeline";
  QSize shot_size(1600, 1000);
  if (const QStringList wh = parser.value(size).split('x'); wh.size() == 2) shot_size = QSize(wh[0].toInt(), wh[1].toInt());
  const QStringList range_text = parser.value(range).split(':');
  auto take_shot = [&window, shot, show_view, timeline_only, shot_size, range_text] {
    QDockWidget* dock = show_view == "window" ? nullptr : window.findChild<QDockWidget*>(show_view + "Dock");
    if (dock) {
      dock->show();
      dock->setFloating(true);
      dock->resize(shot_size);
    }
    if (timeline_only) window.timelineView()->fit();
    if (range_text.size() == 2) {
      // "40%" is a share of the longest run.
      auto at = [&window](QString v) {
        const bool share = v.endsWith('%');
        if (share) v.chop(1);
        return share ? v.toDouble() / 100 * window.timelineView()->axis().extent() : v.toDouble();
      };
      window.timelineView()->setRange(at(range_text[0]), at(range_text[1]));
    }
    QTimer::singleShot(300, &window, [&window, shot, dock] {
      // The picture of the whole study: its prediction and its memory report, not "Predicting...".
      window.document()->waitForStudy();
      window.summaryPanel()->waitForAdvice();  // a large model's advice, computed after the first paint
      QCoreApplication::processEvents();
      QWidget* target = dock ? static_cast<QWidget*>(dock) : static_cast<QWidget*>(&window);
      const bool ok = target->grab().save(shot);
      std::fprintf(stderr, "%s %s\n", ok ? "wrote" : "could not write", qPrintable(shot));
      QApplication::exit(ok ? 0 : 4);
    });
  };
  bool loading = false;
  if (parser.isSet(synthetic)) {
    const int n = parser.value(synthetic).toInt();
    window.openGraph(QString("synthetic-%1").arg(n), [n] { return weft::ui::make_synthetic_graph(n, 1); });
    loading = true;
  } else if (parser.isSet(schedule)) {
    if (parser.isSet(split) || parser.isSet(merge))
      std::fprintf(stderr, "weft-studio: --schedule: the split and merges the file records apply; --split and --merge are not used\n");
    const QString model = parser.positionalArguments().isEmpty() ? QString() : parser.positionalArguments().front();
    window.openSchedule(parser.value(schedule), model);
    loading = window.isLoading();
    if (!loading) std::fprintf(stderr, "%s\n", qPrintable(window.lastMessage()));  // refused before any load
  } else if (!parser.positionalArguments().isEmpty()) {
    window.openPath(parser.positionalArguments().front());
    loading = true;
  }
  if (parser.isSet(find)) {
    const QString text = parser.value(find);
    after_load.push_back([&window, text](bool ok, const QString&) {
      if (ok) window.findNode(text);
    });
  }
  if (const QString view = parser.value(show); view != "window" && view != "timeline") {
    if (!window.showView(view)) std::fprintf(stderr, "no view named '%s'\n", qPrintable(view));
  }
  const bool run_cpu = parser.value(run) == "cpu";
  if (parser.isSet(run) && !run_cpu) {
    std::fprintf(stderr, "--run: only 'cpu' is available (this build has no CUDA executor)\n");
    return 1;
  }
  if (run_cpu) {
    after_load.push_back([&window](bool ok, const QString&) {
      if (ok) window.runOnCpu();
    });
    if (parser.isSet(use_measured))
      QObject::connect(&window, &weft::ui::MainWindow::runFinished, &window, [&window](bool ok) {
        if (ok) window.useMeasuredTimes();
      });
  }
  // Edits a crashed session autosaved: offered back (never in a screenshot run).
  if (shot.isEmpty())
    window.offerRecovery(parser.isSet(recover) ? weft::ui::MainWindow::RecoveryChoice::Accept
                                               : weft::ui::MainWindow::RecoveryChoice::Ask);
  if (!shot.isEmpty()) {
    if (loading && run_cpu) {
      QObject::connect(&window, &weft::ui::MainWindow::runFinished, &window, [take_shot](bool, const QString& msg) {
        std::fprintf(stderr, "%s\n", qPrintable(msg));
        take_shot();
      });
      after_load.push_back([take_shot](bool ok, const QString& msg) {
        if (ok) return;  // the run's end takes the shot
        std::fprintf(stderr, "%s\n", qPrintable(msg));
        take_shot();
      });
    } else if (loading) {
      after_load.push_back([take_shot](bool ok, const QString& msg) {
        if (!ok) std::fprintf(stderr, "%s\n", qPrintable(msg));
        take_shot();
      });
    } else {
      take_shot();
    }
  }
  return QApplication::exec();
}
