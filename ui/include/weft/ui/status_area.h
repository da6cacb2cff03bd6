#pragma once
// The main window's status bar: a summary line, messages (errors in red), and one progress bar
// with a Cancel button shared by loads and runs.
#include <QObject>
#include <QString>

class QLabel;
class QProgressBar;
class QPushButton;
class QStatusBar;

namespace weft::ui {

class StatusArea : public QObject {
  Q_OBJECT
 public:
  /// Adds its widgets to `bar` (which owns them).
  StatusArea(QStatusBar* bar, QObject* parent = nullptr);

  /// Shows a message for a while (errors longer, in red) and remembers it.
  void showMessage(const QString& text, bool error = false);
  const QString& lastMessage() const { return m_last_message; }
  /// The permanent summary at the left of the bar.
  void setSummary(const QString& text);

  /// Shows the progress bar at 0 with `format` (e.g. "Loading %p%") and the Cancel button.
  void startProgress(const QString& format);
  void setProgress(int value);
  /// The stage text: "<text> %p%".
  void setProgressText(const QString& text);
  void hideProgress();

 signals:
  void cancelRequested();

 private:
  QStatusBar* m_bar;
  QLabel* m_summary;
  QProgressBar* m_progress;
  QPushButton* m_cancel;
  QString m_last_message;
};

}  // namespace weft::ui
