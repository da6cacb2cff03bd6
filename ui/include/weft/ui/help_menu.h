#pragma once
// Help: the keyboard shortcuts (collected from the actions themselves) and the About box.
#include <QList>
#include <QObject>
#include <QPair>
#include <QString>

class QMainWindow;

namespace weft::ui {

class HelpMenu : public QObject {
  Q_OBJECT
 public:
  explicit HelpMenu(QMainWindow* window);

  /// Appends the Help menu to the window's menu bar.
  void createMenu();
  /// Every action that has a shortcut: (menu path and name, shortcuts).
  QList<QPair<QString, QString>> shortcutList() const;
  /// Versions of Weft, Qt, protobuf, ONNX, CUDA.
  QString aboutText() const;
  void showShortcuts();

 private:
  QMainWindow* m_window;
};

}  // namespace weft::ui
