#pragma once
// A long studio job's handle: its future, and the error text its work sets when it fails.
#include <QFuture>
#include <QString>
#include <memory>

namespace weft::ui {

/// On failure the future finishes with no result (it throws nothing) and `error` says why; read
/// it after finished(). Shared, so the work writes it wherever the handle has moved.
template <class Result>
struct WorkerJob {
  QFuture<Result> future;
  std::shared_ptr<QString> error = std::make_shared<QString>();
};

}  // namespace weft::ui
