#pragma once
// The thread pool the studio's long jobs run on (loading, studies, frontier, sweep, search, runs).
// Not QThreadPool::globalInstance(): Qt's raster engine borrows that pool while painting, and a
// paint that waits for a pool thread freezes the window while every thread holds a study.
#include <QThreadPool>

namespace weft::ui {

/// The studio's worker pool: at least four threads (a load is never queued behind two studies),
/// more on machines with more cores. Made on first use, after the QApplication; destroyed with it.
QThreadPool* worker_pool();

}  // namespace weft::ui
