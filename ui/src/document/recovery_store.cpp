#include "weft/ui/recovery_store.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace weft::ui {

namespace {

constexpr int kDefaultIntervalMs = 3000;

QString default_folder() {
  const QString env = qEnvironmentVariable("WEFT_RECOVERY_DIR");
  if (!env.isEmpty()) return env;
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/recovery";
}

QString lock_of(const QString& file) { return file.chopped(QStringLiteral(".weft").size()) + ".lock"; }

}  // namespace

RecoveryStore::RecoveryStore(QObject* parent, QString folder)
    : QObject(parent), m_folder(folder.isEmpty() ? default_folder() : std::move(folder)) {
  QDir().mkpath(m_folder);
  m_lock = std::make_unique<QLockFile>(lock_of(sessionFile()));
  // Only a dead owner makes a lock stale, never its age: a long session keeps its lock.
  m_lock->setStaleLockTime(0);
  if (!m_lock->tryLock(0)) m_last_error = tr("cannot lock %1").arg(m_lock->error());
  bool ok = false;
  const int env_ms = qEnvironmentVariableIntValue("WEFT_AUTOSAVE_MS", &ok);
  m_timer.setInterval(ok && env_ms > 0 ? env_ms : kDefaultIntervalMs);
  connect(&m_timer, &QTimer::timeout, this, [this] {
    if (m_dirty) autosaveNow();
  });
  m_timer.start();
}

RecoveryStore::~RecoveryStore() {
  // A normal exit: nothing to recover from this session.
  QFile::remove(sessionFile());
}

QString RecoveryStore::sessionFile() const {
  return m_folder + QStringLiteral("/session-%1.weft").arg(QCoreApplication::applicationPid());
}

void RecoveryStore::markDirty() { m_dirty = true; }

void RecoveryStore::markClean() {
  m_dirty = false;
  QFile::remove(sessionFile());
}

bool RecoveryStore::autosaveNow() {
  if (!m_dirty || !m_writer) return false;
  const QString path = sessionFile();
  const core::Status written = m_writer(path);
  if (!written) {
    // Keep the edits marked dirty: the next tick tries again.
    m_last_error = QString::fromStdString(written.error().message);
    return false;
  }
  m_last_error.clear();
  m_dirty = false;
  emit autosaved(path);
  return true;
}

QStringList RecoveryStore::orphans() {
  const QString own = QFileInfo(sessionFile()).fileName();
  QFileInfoList found = QDir(m_folder).entryInfoList({QStringLiteral("session-*.weft")}, QDir::Files, QDir::Time);
  QStringList result;
  for (const QFileInfo& info : found) {
    if (info.fileName() == own) continue;
    const QString file = info.absoluteFilePath();
    if (m_orphan_locks.count(file)) {  // taken by an earlier call
      result << file;
      continue;
    }
    auto lock = std::make_unique<QLockFile>(lock_of(file));
    lock->setStaleLockTime(0);
    // Taken: its owner is gone (or never locked). Refused: a running studio's session.
    if (!lock->tryLock(0)) continue;
    m_orphan_locks.emplace(file, std::move(lock));
    result << file;
  }
  return result;
}

void RecoveryStore::discard(const QString& file) {
  const QString path = QFileInfo(file).absoluteFilePath();
  QFile::remove(path);
  if (auto it = m_orphan_locks.find(path); it != m_orphan_locks.end()) {
    it->second->unlock();  // removes the lock file
    m_orphan_locks.erase(it);
  }
}

}  // namespace weft::ui
