// weft-studio: the desktop front end.
//   weft-studio [MODEL.onnx | PROJECT.weft] [--screenshot FILE.png] [--synthetic N] [--show VIEW]
//               [--strategy NAME] [--granularity US]
// --screenshot renders the window once the model has loaded, writes the PNG and exits
// (for docs and checks; use QT_QPA_PLATFORM=offscreen without a display).
#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QDoubleSpinBox>
#include <QTimer>
#include <cstdio>

#include "weft/ui/main_window.h"
#include "weft/ui/panels.h"
#include "weft/ui/synthetic_model.h"

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
  const QCommandLineOption show("show", "Bring a docked view forward: memory, lanes, graph, nodes, ... ('window': none).",
                                "view", "window");
  const QCommandLineOption strategy("strategy", "Strategy of the first schedule (default: the studio's).", "name");
  const QCommandLineOption granularity("granularity", "Strategy granularity, µs (-1: automatic).", "us");
  parser.addOptions({screenshot, synthetic, find, size, show, strategy, granularity});
  parser.process(app);

  weft::ui::MainWindow window;
  const QString shot = parser.value(screenshot);
  if (!shot.isEmpty()) {
    const QStringList wh = parser.value(size).split('x');
    if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
  }
  window.show();
  if (parser.isSet(strategy)) window.strategyPanel()->strategyBox()->setCurrentText(parser.value(strategy));
  if (parser.isSet(granularity)) window.strategyPanel()->granularity()->setValue(parser.value(granularity).toDouble());

  auto take_shot = [&window, shot] {
    QTimer::singleShot(300, &window, [&window, shot] {
      const bool ok = window.grab().save(shot);
      std::fprintf(stderr, "%s %s\n", ok ? "wrote" : "could not write", qPrintable(shot));
      QApplication::exit(ok ? 0 : 4);
    });
  };
  bool loading = false;
  if (parser.isSet(synthetic)) {
    const int n = parser.value(synthetic).toInt();
    window.openGraph(QString("synthetic-%1").arg(n), [n] { return weft::ui::make_synthetic_graph(n, 1); });
    loading = true;
  } else if (!parser.positionalArguments().isEmpty()) {
    window.openPath(parser.positionalArguments().front());
    loading = true;
  }
  if (parser.isSet(find)) {
    const QString text = parser.value(find);
    QObject::connect(&window, &weft::ui::MainWindow::loadFinished, &window, [&window, text](bool ok) {
      if (ok) window.findNode(text);
    });
  }
  if (const QString view = parser.value(show); view != "window") {
    if (!window.showView(view)) std::fprintf(stderr, "no view named '%s'\n", qPrintable(view));
  }
  if (!shot.isEmpty()) {
    if (loading) {
      QObject::connect(&window, &weft::ui::MainWindow::loadFinished, &window, [take_shot](bool ok, const QString& msg) {
        if (!ok) std::fprintf(stderr, "%s\n", qPrintable(msg));
        take_shot();
      });
    } else {
      take_shot();
    }
  }
  return QApplication::exec();
}
