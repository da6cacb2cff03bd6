#include "weft/ui/worker_pool.h"

#include <QCoreApplication>
#include <QThread>
#include <algorithm>

namespace weft::ui {

QThreadPool* worker_pool() {
  static QThreadPool* pool = [] {
    // Owned by the application, whose destruction waits for the jobs still running (as it does for
    // the global pool), before static data they may use is destroyed.
    auto* p = new QThreadPool(QCoreApplication::instance());
    p->setMaxThreadCount(std::max(4, QThread::idealThreadCount()));
    p->setObjectName(QStringLiteral("weft-workers"));
    return p;
  }();
  return pool;
}

}  // namespace weft::ui
