#pragma once
#include <QMainWindow>

class QLabel;

namespace weft::ui {

/// The studio's main window (minimal: opens a model and shows its analysis summary).
class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  /// Loads a model; returns false and shows the reason on failure.
  bool openModel(const QString& path);

 private:
  QLabel* m_summary = nullptr;
};

}  // namespace weft::ui
