#pragma once
// Work run beside the calling thread: independent passes of one pipeline (the two schedules of a
// memory report) on a second core.
#include <chrono>
#include <future>
#include <memory>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>

namespace weft::core {

/// Runs `work` on a thread of its own when `parallel` and the machine has more than one hardware
/// thread; otherwise, or where no thread can be started, get() runs it on the calling thread.
/// Only independent work belongs here (it reads shared immutable data and writes its own
/// result), so the result is the same either way. get() waits for it; so does the destructor,
/// which does not run work deferred to a get() that never came.
template <class T>
class Beside {
 public:
  template <class F>
  explicit Beside(F&& work, bool parallel = true) {
    auto task = std::make_shared<std::decay_t<F>>(std::forward<F>(work));
    if (parallel && std::thread::hardware_concurrency() > 1) {
      try {
        m_future = std::async(std::launch::async, [task] { return (*task)(); });
        return;
      } catch (const std::system_error&) {
        // No thread to be had: run it in get() instead.
      }
    }
    m_future = std::async(std::launch::deferred, [task] { return (*task)(); });
  }
  Beside(const Beside&) = delete;
  Beside& operator=(const Beside&) = delete;
  ~Beside() {
    // A thread still running is waited for (it reads what the caller owns); work deferred to
    // get() that nobody asked for is not run.
    if (m_future.valid() && m_future.wait_for(std::chrono::seconds(0)) != std::future_status::deferred) m_future.wait();
  }
  T get() { return m_future.get(); }

 private:
  std::future<T> m_future;
};

}  // namespace weft::core
