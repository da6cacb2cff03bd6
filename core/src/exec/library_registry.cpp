// The library kernels' registry, the checks every one of them shares and the team size.
#include "library_kernel.h"

#include <omp.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#if WEFT_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>
#endif

namespace weft::core::detail {

std::vector<std::string> LibraryRegistry::names() const {
  std::vector<std::string> out;
  out.reserve(m_fns.size());
  for (const auto& [name, fn] : m_fns) out.push_back(name);
  return out;
}

std::string library_name() {
#if WEFT_HAVE_ONEDNN
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
#else
  return {};
#endif
}

const LibraryRegistry& library_registry() {
  static const LibraryRegistry registry = [] {
    LibraryRegistry r;
#if WEFT_HAVE_ONEDNN
    library::register_concat(r);
    library::register_conv(r);
    library::register_pool(r);
    library::register_elementwise(r);
    library::register_fused(r);
    library::register_norm(r);
    library::register_matmul(r);
#endif
    library::register_copy(r);
    library::register_merged(r);
    return r;
  }();
  return registry;
}

LibraryTeam::LibraryTeam(int threads) : m_saved(omp_get_max_threads()) { omp_set_num_threads(std::max(threads, 1)); }

LibraryTeam::~LibraryTeam() { omp_set_num_threads(m_saved); }

int library_team_size() { return omp_get_max_threads(); }

std::vector<pid_t> library_helpers(int threads) {
  std::vector<pid_t> tids(static_cast<std::size_t>(std::max(threads, 1)), 0);
  // The same pool as the library's parallel operators of this thread: libgomp keeps one per
  // thread that starts teams and gives a team of the same size the same threads.
#pragma omp parallel num_threads(threads)
  { tids[static_cast<std::size_t>(omp_get_thread_num())] = static_cast<pid_t>(::syscall(SYS_gettid)); }
  tids.erase(tids.begin());  // the caller
  return tids;
}

void set_helpers_idle(std::span<const pid_t> tids, bool idle) {
  const sched_param param{};
  for (pid_t tid : tids)
    if (tid > 0) ::sched_setscheduler(tid, idle ? SCHED_IDLE : SCHED_OTHER, &param);  // best effort
}

std::unique_ptr<PreparedKernel> prepare_library_kernel(const KernelContext& ctx) {
  const PrepareFn fn = library_registry().find(kernel_key(ctx.node()));
  if (!fn) return nullptr;
  // Library kernels compute float32; every other dtype (half types included, which the reference
  // path widens) stays on the reference kernels. An output the graph leaves untyped (a hand-built
  // graph) takes the kernel's float32.
  // A merged node's members are checked one by one.
  const bool merged = kernel_key(ctx.node()) == "weft.Merged";
  for (std::size_t i = 0; i < ctx.output_count() && !merged; ++i) {
    const DType d = ctx.declared_dtype(i);
    if (ctx.wants_output(i) && d != DType::Float32 && d != DType::Undefined) return nullptr;
  }
  auto prepared = fn(ctx);
  if (!prepared) return nullptr;
  prepared->input_shapes.resize(ctx.input_count());
  for (std::size_t i = 0; i < ctx.input_count(); ++i)
    if (ctx.has_input(i)) prepared->input_shapes[i] = ctx.in(i).shape;
  return prepared;
}

bool prepared_for(const PreparedKernel& k, const KernelContext& ctx) {
  if (k.input_shapes.size() != ctx.input_count()) return false;
  for (std::size_t i = 0; i < ctx.input_count(); ++i)
    if (ctx.has_input(i) && ctx.in(i).shape != k.input_shapes[i]) return false;
  return true;
}

}  // namespace weft::core::detail
