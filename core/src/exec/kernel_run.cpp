// How a kernel runs on a node: half-precision tensors are computed in float32 (widened on the
// way in, rounded nearest-even on the way out), so every float kernel serves float16 and
// bfloat16 without a second implementation.
#include <memory>
#include <set>

#include "half.h"
#include "kernel.h"

namespace weft::core::detail {
namespace {

bool is_half(DType d) { return d == DType::Float16 || d == DType::BFloat16; }

// Operators that move or inspect bytes whatever the dtype, or handle half types themselves:
// widening them would only cost time (and NaN payloads).
bool handles_half_natively(std::string_view op) {
  static const std::set<std::string, std::less<>> kNative = {
      "Cast", "CastLike", "Compress", "Concat", "ConstantOfShape", "DepthToSpace", "Expand", "EyeLike",
      "Flatten", "Gather", "GatherElements", "GatherND", "Identity", "Optional", "OptionalGetElement",
      "OptionalHasElement", "Reshape", "ReverseSequence", "SequenceAt",
      "SequenceConstruct", "SequenceEmpty", "SequenceErase", "SequenceInsert", "SequenceLength", "Shape",
      "Size", "Slice", "SpaceToDepth", "Split", "SplitToSequence", "Squeeze", "Tile", "Transpose",
      "Unsqueeze", "If", "Loop", "Scan"};
  return kNative.count(op) > 0;
}

void widen(const View& from, float* to) {
  const std::int64_t n = from.elements();
  if (from.dtype == DType::Float16) {
    const auto* p = from.as<const Float16>();
    for (std::int64_t i = 0; i < n; ++i) to[i] = p[i].to_float();
  } else {
    const auto* p = from.as<const BFloat16>();
    for (std::int64_t i = 0; i < n; ++i) to[i] = p[i].to_float();
  }
}

void narrow(const float* from, const View& to) {
  const std::int64_t n = to.elements();
  if (to.dtype == DType::Float16) {
    auto* p = to.as<Float16>();
    for (std::int64_t i = 0; i < n; ++i) p[i] = Float16::from(from[i]);
  } else {
    auto* p = to.as<BFloat16>();
    for (std::int64_t i = 0; i < n; ++i) p[i] = BFloat16::from(from[i]);
  }
}

/// The node as a float32 kernel sees it: half inputs widened, half outputs in float32 scratch
/// that finish() rounds into the real outputs.
class WidenedContext final : public KernelContext {
 public:
  WidenedContext(KernelContext& outer, std::span<const View> inputs, DType input_half)
      : KernelContext(outer.node(), inputs, outer.opset(), outer.graph()), m_outer(outer), m_input_half(input_half) {
    set_batch_invariant(outer.batch_invariant());
  }

  Expected<View> output(std::size_t i, DType dtype, Shape shape) override {
    DType target = m_outer.declared_dtype(i);
    if (target == DType::Undefined) target = m_input_half;
    if (dtype != DType::Float32 || !is_half(target)) return m_outer.output(i, dtype, std::move(shape));
    View v{DType::Float32, std::move(shape), nullptr};
    m_scratch.push_back(std::make_unique<float[]>(static_cast<std::size_t>(std::max<std::int64_t>(v.elements(), 1))));
    v.data = m_scratch.back().get();
    m_pending.push_back({i, target, v});
    return v;
  }

  Status finish() {
    for (const Pending& p : m_pending) {
      WEFT_KERNEL_OUTPUT(out, m_outer.output(p.index, p.dtype, p.value.shape));
      narrow(p.value.as<const float>(), out);
    }
    return {};
  }

 private:
  struct Pending {
    std::size_t index;
    DType dtype;
    View value;
  };
  KernelContext& m_outer;
  DType m_input_half;
  std::vector<std::unique_ptr<float[]>> m_scratch;
  std::vector<Pending> m_pending;
};

}  // namespace

Status run_kernel(const KernelFn& fn, KernelContext& ctx) {
  // A merged node's members widen and narrow each on its own, as they would unmerged.
  if (handles_half_natively(ctx.node().op_type) || kernel_key(ctx.node()) == "weft.Merged" || kernel_key(ctx.node()) == "weft.Fused")
    return fn(ctx);
  bool any_half = false;
  DType input_half = DType::Undefined;
  for (std::size_t i = 0; i < ctx.input_count(); ++i)
    if (ctx.has_input(i) && is_half(ctx.in(i).dtype)) {
      any_half = true;
      input_half = input_half == DType::Undefined || input_half == ctx.in(i).dtype ? ctx.in(i).dtype : DType::Float16;
    }
  for (std::size_t i = 0; i < ctx.output_count(); ++i) any_half = any_half || is_half(ctx.declared_dtype(i));
  if (!any_half) return fn(ctx);

  std::vector<View> inputs(ctx.input_count());
  std::vector<std::unique_ptr<float[]>> widened;
  for (std::size_t i = 0; i < ctx.input_count(); ++i) {
    inputs[i] = ctx.in(i);
    if (!ctx.has_input(i) || !is_half(inputs[i].dtype)) continue;
    widened.push_back(std::make_unique<float[]>(static_cast<std::size_t>(std::max<std::int64_t>(inputs[i].elements(), 1))));
    widen(inputs[i], widened.back().get());
    inputs[i].dtype = DType::Float32;
    inputs[i].data = widened.back().get();
  }
  WidenedContext wide(ctx, inputs, input_half);
  WEFT_TRY(fn(wide));
  return wide.finish();
}

}  // namespace weft::core::detail
