#pragma once
// Library kernels: an operator node prepared once per run on a kernel library (oneDNN) or a
// copy routine, then run every iteration. Each stays exactly one ONNX node; the reference
// kernels (kernel.h) remain the oracle and run every node a library kernel declines.
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <map>
#include <new>
#include <utility>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include "kernel.h"

namespace weft::core::detail {

/// One node prepared for the library: primitives made, weights reordered, scratch sized. run()
/// is called from whichever stream's thread runs the node, with that thread's library team
/// sized as it was at preparation (LibraryTeam): the same primitive and algorithm whatever the
/// stream, so every schedule of a model gives bit-identical outputs.
class PreparedKernel {
 public:
  PreparedKernel() = default;
  virtual ~PreparedKernel() = default;
  PreparedKernel(const PreparedKernel&) = delete;
  PreparedKernel& operator=(const PreparedKernel&) = delete;

  /// Runs the node on ctx's inputs (of the shapes it was prepared for) with `scratch` (at least
  /// scratch_bytes, 64-byte aligned, the running thread's own).
  virtual Status run(KernelContext& ctx, std::span<std::uint8_t> scratch) const = 0;

  /// Bytes run() needs as scratch: the library's scratchpad and tensors reordered for it.
  std::size_t scratch_bytes = 0;
  /// Bytes of weights held reordered for the library for the whole run.
  std::size_t packed_bytes = 0;
  /// What runs the node, for reports: "oneDNN brgconv:avx512_core", "weft pad copy".
  std::string implementation;
  /// The input shapes prepared for (empty shape for an omitted input): a run with others falls
  /// back to the reference kernel.
  std::vector<Shape> input_shapes;
};

/// Prepares a node for a library kernel, or returns null (the reference kernel runs it): an
/// attribute, dtype or shape the library path does not cover, or a library that refuses. `ctx`
/// holds the inputs' dtypes and shapes; data only where input_is_weight(i). Never fails: a node
/// the reference kernel would refuse is left to it, which names the problem.
using PrepareFn = std::unique_ptr<PreparedKernel> (*)(const KernelContext& ctx);

/// Operators with a library kernel, by registry key (kernel_key).
class LibraryRegistry {
 public:
  void add(std::string op, PrepareFn fn) { m_fns[std::move(op)] = fn; }
  PrepareFn find(std::string_view op) const {
    auto it = m_fns.find(op);
    return it == m_fns.end() ? nullptr : it->second;
  }
  std::vector<std::string> names() const;

 private:
  std::map<std::string, PrepareFn, std::less<>> m_fns;
};

/// Every library kernel (built once, thread-safe after construction).
const LibraryRegistry& library_registry();

namespace library {
void register_concat(LibraryRegistry& r);
void register_conv(LibraryRegistry& r);
void register_pool(LibraryRegistry& r);
void register_elementwise(LibraryRegistry& r);
void register_fused(LibraryRegistry& r);
void register_norm(LibraryRegistry& r);
void register_matmul(LibraryRegistry& r);
void register_copy(LibraryRegistry& r);
void register_merged(LibraryRegistry& r);
}  // namespace library

/// The node prepared with `threads` library threads, or null (reference kernel): the library
/// registry's prepare function on `ctx` when every input of a computing operator is float32 and
/// every declared output float32. O(the primitive's creation: microseconds to a JIT's
/// milliseconds).
std::unique_ptr<PreparedKernel> prepare_library_kernel(const KernelContext& ctx);

/// Whether the prepared kernel was made for these inputs' shapes.
bool prepared_for(const PreparedKernel& k, const KernelContext& ctx);

/// For its lifetime, the calling thread's library team is `threads` threads (the thread itself
/// and threads - 1 helpers, started by the OpenMP runtime on the first parallel primitive and
/// kept for the thread's life); the previous size comes back after. Cheap (an OpenMP ICV).
///
/// Debian's oneDNN (2.6) threads with GNU OpenMP: a primitive runs on a team of
/// omp_get_max_threads() threads of the thread that executes it, and its work split is chosen
/// for the team size of the thread that creates it. Each stream thread (and the thread that
/// prepares the primitives) therefore sets its own team size, once, to the run's threads per
/// stream: a stream is one team, never more threads than that.
class LibraryTeam {
 public:
  explicit LibraryTeam(int threads);
  ~LibraryTeam();
  LibraryTeam(const LibraryTeam&) = delete;
  LibraryTeam& operator=(const LibraryTeam&) = delete;

 private:
  int m_saved = 1;
};

/// The calling thread's library team size.
int library_team_size();

/// The OpenMP helper threads of the calling thread's team of `threads` (the threads its parallel
/// operators run on, started here when they are not yet), by kernel thread id. One parallel
/// region: a few µs once the helpers run.
std::vector<pid_t> library_helpers(int threads);

/// Puts the helpers `tids` on the idle scheduling class (they run only on a CPU nothing else
/// wants) or back on the normal one. GNU OpenMP's helpers spin for milliseconds after each
/// parallel operator before they sleep; idle, that spin never takes a CPU a stream needs. Best
/// effort: a tid whose class cannot change keeps its own. One system call per helper.
void set_helpers_idle(std::span<const pid_t> tids, bool idle);

/// The kernel library this build has and its version at run time ("oneDNN 2.6.3"), empty without
/// (CMake option WEFT_ONEDNN off: the library set is the copy kernels alone and every other node
/// runs its reference kernel).
std::string library_name();

/// Bytes owned at a 64-byte boundary (weights reordered for the library).
class AlignedBytes {
 public:
  AlignedBytes() = default;
  explicit AlignedBytes(std::size_t bytes)
      : m_data(static_cast<std::uint8_t*>(::operator new(std::max<std::size_t>(bytes, 1), std::align_val_t{64}))), m_size(bytes) {}
  ~AlignedBytes() {
    if (m_data) ::operator delete(m_data, std::align_val_t{64});
  }
  AlignedBytes(AlignedBytes&& o) noexcept : m_data(std::exchange(o.m_data, nullptr)), m_size(std::exchange(o.m_size, 0)) {}
  AlignedBytes& operator=(AlignedBytes&& o) noexcept {
    std::swap(m_data, o.m_data);
    std::swap(m_size, o.m_size);
    return *this;
  }
  AlignedBytes(const AlignedBytes&) = delete;
  AlignedBytes& operator=(const AlignedBytes&) = delete;
  std::uint8_t* data() const { return m_data; }
  std::size_t size() const { return m_size; }

 private:
  std::uint8_t* m_data = nullptr;
  std::size_t m_size = 0;
};

/// How a library kernel treats the layout of the tensors it reads and writes.
enum class LayoutRole : std::uint8_t {
  None,      ///< Weft's row-major layout only (every reference kernel; Gemm, MatMul, Pad, merged nodes)
  Native,    ///< computes channels-last itself: its data input and output in either layout (Conv, pools, Concat, BatchNormalization, fused chains)
  Agnostic,  ///< elementwise: its full-size operands and output in one layout, either (activations, arithmetic)
};
/// The role of a node's operator. O(1).
LayoutRole library_layout_role(const Node& node);

/// A tensor whose bytes are the same in both layouts: one channel, or one spatial position. O(rank).
bool layout_free(std::span<const std::int64_t> shape);

/// The channels-last plan of a graph, per tensor: float32 intermediates of rank 3 to 5 (no views,
/// not layout-free, not in `plain`) that only library kernels read and write, tied in groups by
/// elementwise nodes (one layout per group), where a native kernel reads or writes the group. The
/// plan depends on the graph alone, so every schedule runs the same kernels on the same layouts.
/// O(V + E) with union-find.
std::vector<char> plan_channels_last(const Graph& graph, const std::vector<char>& plain);

/// Offsets into one scratch buffer, each 64-byte aligned: add() returns the part's offset,
/// size() the bytes of every part so far.
class ScratchLayout {
 public:
  std::size_t add(std::size_t bytes) {
    const std::size_t at = m_size;
    m_size += (bytes + 63) / 64 * 64;
    return at;
  }
  std::size_t size() const { return m_size; }

 private:
  std::size_t m_size = 0;
};

}  // namespace weft::core::detail
