#pragma once
// weft-studio's command line: the options (as weft's, where they mean the same), parsed and
// checked, and a session that applies them to a window: what opens, the configuration pinned, and
// what follows the load (--find, --memory-budget, --run, --screenshot). The program's main() only
// parses and starts; tests drive both halves.
#include <QObject>
#include <QSize>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "weft/core/base/expected.h"
#include "weft/ui/graph_view.h"

namespace weft::ui {

class MainWindow;

struct StudioOptions {
  QString path;                  ///< the model (.onnx), project (.weft) or schedule (.json) to open
  QString schedule;              ///< --schedule FILE
  QString profile;               ///< --profile FILE (with an .onnx model)
  std::optional<int> synthetic;  ///< --synthetic N
  QString screenshot;            ///< --screenshot FILE.png
  QSize size{1600, 1000};        ///< --size WxH
  QString show = "window";       ///< --show VIEW
  QString range;                 ///< --range T0:T1
  QString find;                  ///< --find TEXT
  QString run;                   ///< --run BACKEND ("cpu")
  bool use_measured = false;
  bool hybrid = false;           ///< --hybrid: Run ▸ Hybrid teams checked
  QString strategy;
  std::optional<double> granularity;
  bool graph = false;
  bool recover = false;
  QString memory_budget;
  std::map<std::string, std::int64_t> dims;
  bool merge = false;
  std::int64_t batch = 0;  ///< --batch N; 0: the model's own
  int split = -1;          ///< --split K|auto: -1 none, 0 auto
  GraphView::Layering layering = GraphView::Layering::Levels;
  bool help = false, version = false;
  QString help_text;  ///< the usage QCommandLineParser writes
};

/// Parses weft-studio's arguments (`arguments` as QCoreApplication::arguments(): the program first).
/// Errors (Usage) name the option and the value: an unknown option, --layers other than levels,
/// wires or streams, a --batch that is not a positive integer, a bad --split or --dim, --run other
/// than cpu, a --size that is not WxH, a --profile without an .onnx model to open.
core::Expected<StudioOptions> parse_studio_command_line(const QStringList& arguments);

/// One run of the studio as the command line asks: configures `window`, opens what the options
/// name, and arranges what follows the load. Lives as long as the window.
class StudioSession : public QObject {
  Q_OBJECT
 public:
  StudioSession(MainWindow& window, StudioOptions options);
  /// Applies the options and starts opening; false (a message on stderr) where nothing can start.
  bool start();

 private:
  void configure();
  void open();
  void afterLoad(bool ok, const QString& message);
  void arrangeBudget();
  void arrangeRun();
  void arrangeScreenshot();
  void takeScreenshot();

  MainWindow& m_window;
  StudioOptions m_options;
  std::vector<std::function<void(bool, const QString&)>> m_after_load;
  bool m_loading = false;
  bool m_budget_applied = false;  ///< once: later Applies in the session are the user's
  QString m_load_message;
};

}  // namespace weft::ui
