#pragma once
// oneDNN behind one door for the library kernels: the CPU engine, a stream per thread, memory
// descriptors of Weft's row-major tensors, weights and activations reordered to the layouts a
// primitive chose, and oneDNN's exceptions caught where they are thrown. Threads: LibraryTeam
// (library_kernel.h).
#include <oneapi/dnnl/dnnl.hpp>

#include <memory>
#include <string>
#include <unordered_map>

#include "kernel.h"
#include "library_kernel.h"

namespace weft::core::detail {

/// The CPU engine (created once).
const dnnl::engine& dnnl_engine();
/// The calling thread's stream on it (created on first use; a CPU stream is in-order and its
/// execute() returns when the primitive is done).
dnnl::stream& dnnl_thread_stream();

/// oneDNN dims of a shape.
dnnl::memory::dims dnnl_dims(const Shape& shape);
/// A dense row-major float32 descriptor of `shape` (rank 1 to 12; a scalar as {1}).
dnnl::memory::desc plain_f32(const Shape& shape);
/// A dense float32 descriptor of `shape` in channels-last order (NHWC and its 1-D and 3-D forms;
/// rank 3 to 5).
dnnl::memory::desc channels_last_f32(const Shape& shape);
/// The descriptor of a tensor of `shape` as it is laid out: channels-last or row-major.
dnnl::memory::desc tensor_f32(const Shape& shape, bool channels_last);
/// The implementation a primitive descriptor chose, as reports name it: "oneDNN <impl>".
std::string dnnl_implementation(const dnnl::primitive_desc_base& pd);

/// Calls f() and turns a dnnl::error into Error (kernel_error naming the node and oneDNN's
/// status and message).
template <class F>
Status dnnl_try(const KernelContext& ctx, F&& f) {
  try {
    f();
  } catch (const dnnl::error& e) {
    return kernel_error(ctx, std::string("oneDNN: ") + e.what());
  }
  return {};
}

/// A memory object over bytes owned elsewhere (no copy).
inline dnnl::memory dnnl_memory(const dnnl::memory::desc& desc, void* data) {
  return dnnl::memory(desc, dnnl_engine(), data);
}

/// The attributes every library primitive is made with: its scratchpad in the caller's memory
/// (the worker's scratch), never allocated by oneDNN during a run.
dnnl::primitive_attr scratchpad_attr();

/// A library kernel on one oneDNN primitive writing output 0: run() asks for the output, puts the
/// primitive's scratchpad at its offset in the worker's scratch and lets the kernel bind its
/// arguments and execute (bind_and_execute), oneDNN's exceptions caught.
class PrimitiveKernel : public PreparedKernel {
 public:
  Status run(KernelContext& ctx, std::span<std::uint8_t> scratch) const final;

  /// Takes a primitive descriptor's primitive, scratchpad (placed next in `layout`) and name.
  template <class Primitive>
  void take(const typename Primitive::primitive_desc& pd, ScratchLayout& layout) {
    m_primitive = Primitive(pd);
    m_scratchpad = pd.scratchpad_desc();
    m_scratchpad_at = layout.add(m_scratchpad.get_size());
    implementation = dnnl_implementation(pd);
  }
  /// The same for a kernel whose only scratch is the scratchpad.
  template <class Primitive>
  void take(const typename Primitive::primitive_desc& pd) {
    ScratchLayout layout;
    take<Primitive>(pd, layout);
    scratch_bytes = layout.size();
  }

  Shape m_shape;  ///< output 0's

 protected:
  /// Adds the kernel's arguments to `args` (which holds the scratchpad) and executes
  /// m_primitive on `s`; `y` is output 0, `scratch` the worker's scratch.
  virtual void bind_and_execute(const KernelContext& ctx, const View& y, std::uint8_t* scratch, const dnnl::stream& s,
                                std::unordered_map<int, dnnl::memory>& args) const = 0;

  dnnl::primitive m_primitive;

 private:
  dnnl::memory::desc m_scratchpad;
  std::size_t m_scratchpad_at = 0;
};

/// One operand of a primitive in the layout the primitive chose (`chosen`) while the tensor
/// keeps Weft's row-major layout (`plain`): the tensor's own bytes where the two agree, else a
/// reorder into the running thread's scratch (an input, before the primitive) or out of it (an
/// output, after), or, for a weight, a copy reordered once at preparation.
class LibraryOperand {
 public:
  /// An input; `weight` (non-null: the bytes of a weight, constant for the run) is reordered now
  /// into packed bytes counted in k.packed_bytes. Scratch comes from `layout`.
  void prepare_input(const dnnl::memory::desc& plain, const dnnl::memory::desc& chosen, ScratchLayout& layout,
                     const void* weight, PreparedKernel& k);
  /// An output.
  void prepare_output(const dnnl::memory::desc& plain, const dnnl::memory::desc& chosen, ScratchLayout& layout);
  /// The input's memory in the chosen layout (reordered into scratch now where needed).
  dnnl::memory bind_input(const void* data, std::uint8_t* scratch, const dnnl::stream& s) const;
  /// The memory the primitive writes the output into.
  dnnl::memory bind_output(void* data, std::uint8_t* scratch) const;
  /// After the primitive: the output reordered into the tensor's bytes where needed.
  void finish_output(const dnnl::memory& written, void* data, const dnnl::stream& s) const;
  /// The primitive reads or writes the tensor's own bytes (no reorder, no packed copy).
  bool direct() const { return !m_reorder && !m_packed; }

 private:
  dnnl::memory::desc m_plain, m_chosen;
  dnnl::reorder m_reorder;  ///< empty where the layouts agree or the weight is packed
  std::size_t m_at = 0;     ///< offset in the scratch
  std::shared_ptr<AlignedBytes> m_packed;
};

}  // namespace weft::core::detail
