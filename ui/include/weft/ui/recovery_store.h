#pragma once
// Crash recovery: unsaved edits are autosaved every few seconds to a recovery file (a project
// document, written atomically); a session that ends normally removes its file, so a file left by
// a session that is no longer running means a crash, and the next studio offers to recover it.
#include <QLockFile>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <functional>
#include <map>
#include <memory>

#include "weft/core/base/expected.h"

namespace weft::ui {

class RecoveryStore : public QObject {
  Q_OBJECT
 public:
  /// Writes the session's state to a file (the main window saves a project document).
  using Writer = std::function<core::Status(const QString& path)>;

  /// `folder`: where recovery files live; empty: $WEFT_RECOVERY_DIR, else
  /// <AppDataLocation>/recovery. The interval is $WEFT_AUTOSAVE_MS when set, else 3 s.
  /// Takes this session's lock (session-<pid>.lock) at once.
  explicit RecoveryStore(QObject* parent = nullptr, QString folder = {});
  ~RecoveryStore() override;
  RecoveryStore(const RecoveryStore&) = delete;
  RecoveryStore& operator=(const RecoveryStore&) = delete;

  void setWriter(Writer writer) { m_writer = std::move(writer); }
  /// Unsaved edits exist: the next tick writes them (at most one write per interval).
  void markDirty();
  /// Nothing unsaved (saved, reloaded, closed): removes this session's recovery file.
  void markClean();
  /// Writes now if dirty; false when nothing was written (clean, no writer, or the write failed).
  bool autosaveNow();
  int intervalMs() const { return m_timer.interval(); }
  void setIntervalMs(int ms) { m_timer.setInterval(ms); }

  QString folder() const { return m_folder; }
  /// This session's recovery file (exists only while there are unsaved, autosaved edits).
  QString sessionFile() const;
  /// Recovery files of sessions that are no longer running (crashed), newest first. Each one's
  /// lock is taken, so two studios never recover the same file.
  QStringList orphans();
  /// Removes an orphan (recovered or declined) and its lock.
  void discard(const QString& file);
  /// The last autosave's error, empty when it succeeded.
  const QString& lastError() const { return m_last_error; }

 signals:
  /// After each successful autosave, with the file written.
  void autosaved(const QString& path);

 private:
  QString m_folder;
  std::unique_ptr<QLockFile> m_lock;                 // this session's
  std::map<QString, std::unique_ptr<QLockFile>> m_orphan_locks;  // orphan file -> its lock, held
  Writer m_writer;
  QTimer m_timer;
  bool m_dirty = false;
  QString m_last_error;
};

}  // namespace weft::ui
