// weft-studio: the desktop front end.
//   weft-studio [MODEL.onnx | PROJECT.weft] [--screenshot FILE.png] [--synthetic N]
//               [--run cpu [--use-measured] [--hybrid]] [--show timeline | VIEW] [--range T0:T1]
//               [--strategy NAME] [--granularity US] [--graph] [--recover]
//               [--dim NAME=VALUE | --dim INPUT:AXIS=VALUE]... [--merge] [--batch N] [--split K|auto]
//               [--layers levels|wires|streams]
// --screenshot renders the window once the model has loaded and its study has arrived (and a
// --memory-budget Apply has fitted; with --run cpu, once the run has finished), writes the PNG and exits (for docs and checks; use QT_QPA_PLATFORM=offscreen
// without a display). --show VIEW (timeline, memory, lanes, graph, ...) brings that dock forward;
// with --screenshot it floats the dock at --size and shoots it alone; --range selects a time range (µs) in it; --use-measured calibrates the cost model after the run.
#include <QApplication>
#include <cstdio>

#include "weft/ui/main_window.h"
#include "weft/ui/studio_command_line.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  // Settings live under organisation "Weft", application "Weft Studio".
  QApplication::setApplicationName("Weft Studio");
  QApplication::setOrganizationName("Weft");
  QApplication::setApplicationVersion(WEFT_VERSION);
  auto options = weft::ui::parse_studio_command_line(QApplication::arguments());
  if (!options) {
    std::fprintf(stderr, "weft-studio: error: %s\n", options.error().message.c_str());
    return 1;
  }
  if (options->help || options->version) {
    std::fputs(qPrintable(options->help ? options->help_text : "Weft Studio " WEFT_VERSION "\n"), stdout);
    return 0;
  }
  weft::ui::MainWindow window;
  weft::ui::StudioSession session(window, std::move(*options));
  if (!session.start()) return 1;
  return QApplication::exec();
}
