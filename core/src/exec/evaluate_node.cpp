// The constant folder's evaluator: one node on the reference kernels, outputs owned.
#include "weft/core/exec/evaluate_node.h"

#include <cstring>
#include <new>

#include "kernel.h"

namespace weft::core::detail {

bool has_cpu_kernel(std::string_view op) { return kernel_registry().find(op) != nullptr; }

bool evaluate_node(const Node& node, std::span<const HostTensor> inputs, const std::vector<bool>& has_data, std::int64_t opset,
                   std::int64_t max_elements, std::vector<HostTensor>& outputs) {
  const KernelFn* fn = kernel_registry().find(node.op_type);
  if (!fn) return false;
  std::vector<View> views(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    views[i] = View{inputs[i].dtype, inputs[i].shape,
                    i < has_data.size() && has_data[i] ? const_cast<std::uint8_t*>(inputs[i].bytes.data()) : nullptr};
  }
  try {
    // Outputs are written straight into their HostTensors' bytes (resized when requested).
    struct Direct final : KernelContext {
      Direct(const Node& n, std::span<const View> in, std::int64_t o, std::int64_t max, std::vector<HostTensor>& out)
          : KernelContext(n, in, o), m_max(max), m_out(out) {
        m_out.assign(n.outputs.size(), HostTensor{DType::Undefined, {}, {}});
        m_buffers.resize(n.outputs.size());
      }
      Expected<View> output(std::size_t i, DType dtype, Shape shape) override {
        if (i >= m_out.size()) return kernel_error(*this, "output index out of range");
        std::int64_t n = 1;
        // Every dim bounded too (not only the product), so that shape arithmetic downstream
        // stays free of overflow even where another dim is 0.
        for (std::int64_t d : shape) {
          if (d < 0 || d > m_max || (d > 0 && n > m_max / d)) return kernel_error(*this, "output too large to fold");
          n *= d;
        }
        if (dtype_size(dtype) == 0) return kernel_error(*this, "dtype without a fixed size");
        HostTensor& h = m_out[i];
        h.dtype = dtype;
        h.shape = shape;
        // A 64-bit buffer keeps every element type aligned; copied into h.bytes afterwards.
        m_buffers[i].assign((static_cast<std::size_t>(n) * dtype_size(dtype) + 7) / 8 + 1, 0);
        return View{dtype, std::move(shape), m_buffers[i].data()};
      }
      void finish() {
        for (std::size_t i = 0; i < m_out.size(); ++i) {
          HostTensor& h = m_out[i];
          if (h.dtype == DType::Undefined) continue;
          h.bytes.resize(static_cast<std::size_t>(shape_elements(h.shape)) * dtype_size(h.dtype));
          if (!h.bytes.empty()) std::memcpy(h.bytes.data(), m_buffers[i].data(), h.bytes.size());
        }
      }
      std::int64_t m_max;
      std::vector<HostTensor>& m_out;
      std::vector<std::vector<std::uint64_t>> m_buffers;
    } ctx(node, views, opset, max_elements, outputs);
    if (!run_kernel(*fn, ctx)) return false;
    ctx.finish();
  } catch (const std::bad_alloc&) {
    return false;  // a hostile constant asked for more memory than there is: leave the node
  } catch (const std::length_error&) {
    return false;
  }
  for (std::size_t i = 0; i < node.outputs.size(); ++i)
    if (node.outputs[i] != kNoTensor && outputs[i].dtype == DType::Undefined) return false;
  return true;
}

}  // namespace weft::core::detail
