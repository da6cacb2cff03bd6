// Control flow: If (one branch), Loop (trip count and/or condition, loop-carried values, scan
// outputs stacked on a new first axis) and Scan (opset 8 with a batch axis, and 9+ with axes and
// directions). Bodies run through run_subgraph, inside their node. A horizontal merge (weft.Merged)
// runs its members inside its one node, writing their outputs in place.
#include <cstring>

#include "kernel.h"
#include "weft/core/exec/executor.h"

namespace weft::core::detail {
namespace {

const Graph* body_of(const KernelContext& ctx, std::string_view attr) {
  const Attribute* a = ctx.node().attribute(attr);
  return a ? a->graph.get() : nullptr;
}

Status write_output(KernelContext& ctx, std::size_t i, const HostTensor& h) {
  if (!ctx.wants_output(i)) return {};
  WEFT_KERNEL_OUTPUT(y, ctx.output(i, h.dtype, h.shape));
  if (!h.bytes.empty()) std::memcpy(y.data, h.bytes.data(), h.bytes.size());
  return {};
}

/// Stacks equally shaped tensors along a new axis `axis` (0 <= axis <= rank), reversed if asked.
Expected<HostTensor> stack(const KernelContext& ctx, const std::vector<HostTensor>& parts, std::int64_t axis, bool reverse,
                           DType empty_dtype) {
  HostTensor out;
  if (parts.empty()) {
    out.dtype = empty_dtype;
    out.shape = {0};
    return out;
  }
  const HostTensor& first = parts.front();
  for (const HostTensor& p : parts)
    if (p.shape != first.shape || p.dtype != first.dtype) return kernel_error(ctx, "scan outputs change shape between iterations");
  if (axis < 0) axis += static_cast<std::int64_t>(first.shape.size()) + 1;
  if (axis < 0 || axis > static_cast<std::int64_t>(first.shape.size())) return kernel_error(ctx, "scan output axis out of range");
  out.dtype = first.dtype;
  out.shape = first.shape;
  out.shape.insert(out.shape.begin() + axis, static_cast<std::int64_t>(parts.size()));
  const std::size_t es = dtype_size(first.dtype);
  const std::int64_t inner = shape_elements(std::span(first.shape).subspan(static_cast<std::size_t>(axis)));
  const std::int64_t outer = shape_elements(std::span(first.shape).first(static_cast<std::size_t>(axis)));
  const auto n = static_cast<std::int64_t>(parts.size());
  out.bytes.resize(static_cast<std::size_t>(outer * n * inner) * es);
  for (std::int64_t k = 0; k < n; ++k) {
    const HostTensor& p = parts[static_cast<std::size_t>(reverse ? n - 1 - k : k)];
    for (std::int64_t o = 0; o < outer; ++o)
      std::memcpy(out.bytes.data() + static_cast<std::size_t>((o * n + k) * inner) * es,
                  p.bytes.data() + static_cast<std::size_t>(o * inner) * es, static_cast<std::size_t>(inner) * es);
  }
  return out;
}

/// Slice k along `axis` of v (the axis removed).
HostTensor slice_of(const View& v, std::int64_t axis, std::int64_t k) {
  HostTensor h;
  h.dtype = v.dtype;
  h.shape = v.shape;
  const std::int64_t n = v.shape[static_cast<std::size_t>(axis)];
  h.shape.erase(h.shape.begin() + axis);
  const std::size_t es = dtype_size(v.dtype);
  const std::int64_t inner = shape_elements(std::span(v.shape).subspan(static_cast<std::size_t>(axis) + 1));
  const std::int64_t outer = shape_elements(std::span(v.shape).first(static_cast<std::size_t>(axis)));
  h.bytes.resize(static_cast<std::size_t>(outer * inner) * es);
  for (std::int64_t o = 0; o < outer; ++o)
    std::memcpy(h.bytes.data() + static_cast<std::size_t>(o * inner) * es,
                static_cast<const std::uint8_t*>(v.data) + static_cast<std::size_t>((o * n + k) * inner) * es,
                static_cast<std::size_t>(inner) * es);
  return h;
}

Status if_kernel(KernelContext& ctx) {
  const View& cond = ctx.in(0);
  if (cond.elements() != 1 || !is_numeric(cond.dtype)) return kernel_error(ctx, "cond must be one bool");
  const Graph* body = body_of(ctx, load_double(cond, 0) != 0 ? "then_branch" : "else_branch");
  if (!body) return kernel_error(ctx, "branch missing");
  WEFT_TRY_ASSIGN(auto out, run_subgraph(ctx, *body, {}));
  if (out.size() < ctx.output_count()) return kernel_error(ctx, "branch has fewer outputs than the node");
  for (std::size_t i = 0; i < ctx.output_count(); ++i)
    WEFT_TRY(write_output(ctx, i, out[i]));
  return {};
}

Status loop_kernel(KernelContext& ctx) {
  const Graph* body = body_of(ctx, "body");
  if (!body) return kernel_error(ctx, "body missing");
  // The node's own inputs: M, cond, carried values; captured names follow (the importer adds them).
  const std::size_t formal_body = body->inputs().size() - body->info().captures.size();
  if (formal_body < 2) return kernel_error(ctx, "body must take the iteration number and the condition");
  const std::size_t carried = formal_body - 2;
  std::int64_t max_trips = -1;
  if (ctx.has_input(0)) {
    if (ctx.in(0).elements() != 1) return kernel_error(ctx, "M must be a scalar");
    max_trips = static_cast<std::int64_t>(load_double(ctx.in(0), 0));
  }
  bool cond = true;
  if (ctx.has_input(1)) {
    if (ctx.in(1).elements() != 1) return kernel_error(ctx, "cond must be a scalar");
    cond = load_double(ctx.in(1), 0) != 0;
  }
  if (ctx.input_count() < 2 + carried) return kernel_error(ctx, "fewer loop-carried inputs than the body takes");
  std::vector<HostTensor> state;
  for (std::size_t k = 0; k < carried; ++k) state.push_back(host_of(ctx.in(2 + k)));
  const std::size_t scan_outputs = body->outputs().size() >= 1 + carried ? body->outputs().size() - 1 - carried : 0;
  std::vector<std::vector<HostTensor>> scans(scan_outputs);
  HostTensor iter{DType::Int64, {}, std::vector<std::uint8_t>(8, 0)};
  HostTensor cond_t{DType::Bool, {}, std::vector<std::uint8_t>(1, 1)};
  for (std::int64_t i = 0; (max_trips < 0 || i < max_trips) && cond; ++i) {
    std::memcpy(iter.bytes.data(), &i, 8);
    cond_t.bytes[0] = 1;
    std::vector<View> formal{view_of(iter), view_of(cond_t)};
    for (const HostTensor& h : state) formal.push_back(view_of(h));
    WEFT_TRY_ASSIGN(auto out, run_subgraph(ctx, *body, formal));
    if (out.size() != 1 + carried + scan_outputs) return kernel_error(ctx, "body outputs do not match its inputs");
    cond = load_double(view_of(out[0]), 0) != 0;
    for (std::size_t k = 0; k < carried; ++k) state[k] = std::move(out[1 + k]);
    for (std::size_t k = 0; k < scan_outputs; ++k) scans[k].push_back(std::move(out[1 + carried + k]));
  }
  for (std::size_t k = 0; k < carried; ++k)
    WEFT_TRY(write_output(ctx, k, state[k]));
  for (std::size_t k = 0; k < scan_outputs; ++k) {
    const Tensor* declared = ctx.graph() && ctx.wants_output(carried + k) ? &ctx.graph()->tensor(ctx.node().outputs[carried + k]) : nullptr;
    WEFT_TRY_ASSIGN(auto stacked, stack(ctx, scans[k], 0, false, declared ? declared->dtype : DType::Float32));
    WEFT_TRY(write_output(ctx, carried + k, stacked));
  }
  return {};
}

/// Scan over `scan_in` (each with its axis and direction) carrying `states`; appends the final
/// states and the stacked scan outputs to `results`.
Status scan_once(KernelContext& ctx, const Graph& body, std::vector<HostTensor> states, const std::vector<View>& scan_in,
                 const std::vector<std::int64_t>& in_axes, const std::vector<std::int64_t>& in_dirs,
                 const std::vector<std::int64_t>& out_axes, const std::vector<std::int64_t>& out_dirs,
                 std::vector<HostTensor>& results) {
  std::int64_t steps = -1;
  for (std::size_t k = 0; k < scan_in.size(); ++k) {
    const std::int64_t n = scan_in[k].shape.at(static_cast<std::size_t>(in_axes[k]));
    if (steps >= 0 && n != steps) return kernel_error(ctx, "scan inputs differ in length");
    steps = n;
  }
  const std::size_t n_scan_out = body.outputs().size() - states.size();
  std::vector<std::vector<HostTensor>> scans(n_scan_out);
  for (std::int64_t t = 0; t < std::max<std::int64_t>(steps, 0); ++t) {
    std::vector<HostTensor> slices;
    for (std::size_t k = 0; k < scan_in.size(); ++k) slices.push_back(slice_of(scan_in[k], in_axes[k], in_dirs[k] ? steps - 1 - t : t));
    std::vector<View> formal;
    for (const HostTensor& h : states) formal.push_back(view_of(h));
    for (const HostTensor& h : slices) formal.push_back(view_of(h));
    WEFT_TRY_ASSIGN(auto out, run_subgraph(ctx, body, formal));
    for (std::size_t k = 0; k < states.size(); ++k) states[k] = std::move(out[k]);
    for (std::size_t k = 0; k < n_scan_out; ++k) scans[k].push_back(std::move(out[states.size() + k]));
  }
  for (HostTensor& s : states) results.push_back(std::move(s));
  for (std::size_t k = 0; k < n_scan_out; ++k) {
    WEFT_TRY_ASSIGN(auto stacked, stack(ctx, scans[k], out_axes[k], out_dirs[k] != 0, DType::Float32));
    results.push_back(std::move(stacked));
  }
  return {};
}

Status scan_kernel(KernelContext& ctx) {
  const Graph* body = body_of(ctx, "body");
  if (!body) return kernel_error(ctx, "body missing");
  const Node& node = ctx.node();
  const auto n_scan = static_cast<std::size_t>(node.attr_int("num_scan_inputs", 0));
  const std::size_t formal_body = body->inputs().size() - body->info().captures.size();
  if (n_scan > formal_body) return kernel_error(ctx, "num_scan_inputs exceeds the body's inputs");
  const std::size_t n_state = formal_body - n_scan;
  const std::size_t n_scan_out = body->outputs().size() - n_state;
  const bool v8 = ctx.opset_before(9);
  const std::size_t first = v8 ? 1 : 0;  // opset 8: sequence_lens first
  if (ctx.input_count() < first + formal_body) return kernel_error(ctx, "fewer inputs than the body takes");
  if (v8 && ctx.has_input(0)) {
    std::vector<std::int64_t> lens;
    if (!read_ints(ctx.in(0), lens)) return kernel_error(ctx, "sequence_lens must be int32");
    for (std::int64_t l : lens)
      if (l != ctx.in(first + n_state).shape.at(1)) return unsupported(ctx, "sequence_lens shorter than the sequence");
  }
  auto ints_or = [&](const char* name, std::size_t n, std::int64_t fill) {
    auto v = node.attr_ints(name);
    v.resize(n, fill);
    return v;
  };
  std::vector<std::int64_t> in_dirs = ints_or(v8 ? "directions" : "scan_input_directions", n_scan, 0);
  std::vector<std::int64_t> in_axes = ints_or("scan_input_axes", n_scan, 0);
  std::vector<std::int64_t> out_axes = ints_or("scan_output_axes", n_scan_out, 0);
  std::vector<std::int64_t> out_dirs = ints_or("scan_output_directions", n_scan_out, 0);
  std::vector<HostTensor> results;
  if (!v8) {
    std::vector<HostTensor> states;
    std::vector<View> scan_in;
    for (std::size_t k = 0; k < n_state; ++k) states.push_back(host_of(ctx.in(k)));
    for (std::size_t k = 0; k < n_scan; ++k) {
      scan_in.push_back(ctx.in(n_state + k));
      const auto rank = static_cast<std::int64_t>(scan_in.back().shape.size());
      if (!normalize_axis(in_axes[k], rank) || rank == 0) return kernel_error(ctx, "scan input axis out of range");
    }
    for (std::size_t k = 0; k < n_scan_out; ++k)
      if (out_axes[k] < 0) out_axes[k] += 1 + static_cast<std::int64_t>(body->tensor(body->outputs()[n_state + k]).dims.size());
    WEFT_TRY(scan_once(ctx, *body, std::move(states), scan_in, in_axes, in_dirs, out_axes, out_dirs, results));
  } else {
    // Opset 8: axis 0 of every state and scan input is a batch; scan axis 1; run per batch entry.
    const View& probe = ctx.in(first);
    const std::int64_t batch = probe.shape.empty() ? 0 : probe.shape[0];
    std::vector<std::vector<HostTensor>> per_batch;
    for (std::int64_t b = 0; b < batch; ++b) {
      std::vector<HostTensor> states, slices;
      std::vector<View> scan_in;
      for (std::size_t k = 0; k < n_state; ++k) states.push_back(slice_of(ctx.in(first + k), 0, b));
      for (std::size_t k = 0; k < n_scan; ++k) slices.push_back(slice_of(ctx.in(first + n_state + k), 0, b));
      for (const HostTensor& h : slices) scan_in.push_back(view_of(h));
      std::vector<std::int64_t> zero_in(n_scan, 0), zero_out(n_scan_out, 0);
      std::vector<HostTensor> r;
      WEFT_TRY(scan_once(ctx, *body, std::move(states), scan_in, zero_in, in_dirs, zero_out, zero_out, r));
      per_batch.push_back(std::move(r));
    }
    for (std::size_t k = 0; k < n_state + n_scan_out; ++k) {
      std::vector<HostTensor> parts;
      for (auto& r : per_batch) parts.push_back(std::move(r[k]));
      WEFT_TRY_ASSIGN(auto stacked, stack(ctx, parts, 0, false, DType::Float32));
      results.push_back(std::move(stacked));
    }
  }
  for (std::size_t k = 0; k < results.size() && k < ctx.output_count(); ++k)
    WEFT_TRY(write_output(ctx, k, results[k]));
  return {};
}


// A horizontal merge (merge_graph): the members run one after another inside their one launch,
// each on its own inputs and in its own summation order, so outputs equal the unmerged run's bit
// for bit. Members are independent (merge_graph refuses others): none reads another's output.
Status merged_kernel(KernelContext& ctx) {
  WEFT_TRY_ASSIGN(const MergedMembers members, merged_members(ctx));
  const KernelRegistry& registry = kernel_registry();
  for (std::size_t k = 0; k < members.body->node_count(); ++k) {
    const std::vector<View> in = members.member_inputs(ctx, k);
    MemberContext mctx(ctx, members, k, in);
    const KernelFn* fn = registry.find(kernel_key(mctx.node()));
    if (!fn) return unsupported(mctx, "operator");
    WEFT_TRY(run_kernel(*fn, mctx));
  }
  return {};
}

// A vertical fusion (fuse_graph): the chain's members in order, each on its reference kernel, an
// intermediate held in scratch for the next member and the last writing the node's output: the
// conformance oracle for the library's one primitive with post-ops.
Status fused_kernel(KernelContext& ctx) {
  WEFT_TRY_ASSIGN(const MergedMembers members, merged_members(ctx, true));
  const KernelRegistry& registry = kernel_registry();
  std::vector<View> produced(members.body->tensor_count());
  std::vector<std::vector<std::uint8_t>> held;
  for (std::size_t k = 0; k < members.body->node_count(); ++k) {
    std::vector<View> in = members.member_inputs(ctx, k);
    for (std::size_t i = 0; i < in.size(); ++i)
      if (const int from = members.inputs[k][i]; from <= -2) in[i] = produced[static_cast<std::size_t>(-2 - from)];
    MemberContext mctx(ctx, members, k, in);
    const KernelFn* fn = registry.find(kernel_key(mctx.node()));
    if (!fn) return unsupported(mctx, "operator");
    WEFT_TRY(run_kernel(*fn, mctx));
    const Node& member = mctx.node();
    for (std::size_t o = 0; o < member.outputs.size(); ++o)
      if (member.outputs[o] != kNoTensor) produced[static_cast<std::size_t>(member.outputs[o])] = mctx.written(o);
    for (auto& bytes : mctx.take_scratch()) held.push_back(std::move(bytes));
  }
  return {};
}

}  // namespace

void register_control_kernels(KernelRegistry& r) {
  r.add(kernel_key("weft", "Fused"), fused_kernel);
  r.add("If", if_kernel);
  r.add(kernel_key("weft", "Merged"), merged_kernel);
  r.add("Loop", loop_kernel);
  r.add("Scan", scan_kernel);
}

}  // namespace weft::core::detail
