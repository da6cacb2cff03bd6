// A vertical fusion (weft.Fused) on the library kernels: the chain's producer made as one oneDNN
// primitive with its consumers as post-ops, so that the intermediates stay in registers and the
// chain is one pass over its output. A chain the library cannot express declines here, and the
// reference kernel runs the members in order.
#include "library_post_ops.h"

namespace weft::core::detail::library {
namespace {

std::unique_ptr<PreparedKernel> prepare_fused(const KernelContext& ctx) {
  auto members = merged_members(ctx, true);
  if (!members || members->body->node_count() < 2 || members->body->node(0).op_type != "Conv") return nullptr;
  // The producer reads the node's first inputs in its own order (fuse_graph lists them first), so
  // the convolution runs on the node's context as it would on its own.
  const std::vector<int>& conv_in = members->inputs[0];
  for (std::size_t i = 0; i < conv_in.size(); ++i)
    if (conv_in[i] != static_cast<int>(i)) return nullptr;
  ConvPostOps post;
  for (std::size_t k = 1; k < members->body->node_count(); ++k) {
    const std::vector<View> in = members->member_inputs(ctx, k);
    MemberContext member(const_cast<KernelContext&>(ctx), *members, k, in);  // only read while preparing
    if (member.node().op_type == "Add") {
      for (int from : members->inputs[k])
        if (from >= 0) post.residual_input = from;
      if (post.residual_input < 0) return nullptr;
      post.residual_channels_last = ctx.in(static_cast<std::size_t>(post.residual_input)).channels_last;
      post.steps.push_back(PostOp{true});
      continue;
    }
    const auto op = activation_op(member);
    if (!op) return nullptr;
    post.steps.push_back(PostOp{false, *op});
  }
  // The producer's context: its node and inputs, its output the fused node's output 0.
  MergedMembers producer = *members;
  producer.outputs[0] = {0};
  const std::vector<View> in = producer.member_inputs(ctx, 0);
  MemberContext conv(const_cast<KernelContext&>(ctx), producer, 0, in);
  return prepare_conv_with(conv, post);
}

}  // namespace

void register_fused(LibraryRegistry& r) { r.add(kernel_key("weft", "Fused"), prepare_fused); }

}  // namespace weft::core::detail::library
