#pragma once
// The thread pool the studio's long jobs run on (loading, studies, frontier, sweep, search, runs).
// Not QThreadPool::globalInstance(): Qt's raster engine borrows that pool while painting, and a
// paint that waits for a pool thread freezes the window while every thread holds a study.
#include <QPromise>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>
#include <utility>

#include "weft/ui/worker_job.h"

namespace weft::ui {

/// The studio's worker pool: at least four threads (a load is never queued behind two studies),
/// more on machines with more cores. Made on first use, after the QApplication; destroyed with it.
QThreadPool* worker_pool();

/// Runs work(promise, error) on worker_pool(): it reports progress and its result through the
/// promise, and on failure adds no result and writes the reason to `error`.
template <class Result, class Work>
WorkerJob<Result> start_worker_job(Work work) {
  WorkerJob<Result> job;
  job.future = QtConcurrent::run(worker_pool(), [work = std::move(work), error = job.error](QPromise<Result>& promise) {
    work(promise, *error);
  });
  return job;
}

}  // namespace weft::ui
