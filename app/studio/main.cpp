// weft-studio: the desktop front end.
#include <QApplication>

#include "weft/ui/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("weft-studio");
  QApplication::setOrganizationName("weft");
  weft::ui::MainWindow window;
  const QStringList args = QApplication::arguments();
  if (args.size() > 1) window.openModel(args.at(1));
  window.show();
  return QApplication::exec();
}
