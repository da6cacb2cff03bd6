// A horizontal merge (weft.Merged) on the library kernels: each member prepared as it would be
// unmerged and run in order inside the one node, so that a merged run equals the unmerged model's
// run bit for bit on the library kernels too. Members the library declines run their reference
// kernels, as they would unmerged.
#include <algorithm>

#include "library_kernel.h"

namespace weft::core::detail::library {
namespace {

class MergedKernel final : public PreparedKernel {
 public:
  Status run(KernelContext& ctx, std::span<std::uint8_t> scratch) const override {
    for (std::size_t k = 0; k < m_prepared.size(); ++k) {
      const std::vector<View> in = m_members.member_inputs(ctx, k);
      MemberContext member(ctx, m_members, k, in);
      if (const PreparedKernel* p = m_prepared[k].get(); p && prepared_for(*p, member)) {
        WEFT_TRY(p->run(member, scratch));
        continue;
      }
      const KernelFn* fn = kernel_registry().find(kernel_key(member.node()));
      if (!fn) return unsupported(member, "operator");
      WEFT_TRY(run_kernel(*fn, member));
    }
    return {};
  }

  MergedMembers m_members;
  std::vector<std::unique_ptr<PreparedKernel>> m_prepared;  ///< per member (null: its reference kernel)
};

std::unique_ptr<PreparedKernel> prepare_merged(const KernelContext& ctx) {
  auto members = merged_members(ctx);
  if (!members) return nullptr;  // the reference kernel names the problem
  auto k = std::make_unique<MergedKernel>();
  k->m_members = std::move(*members);
  std::size_t on_library = 0;
  std::string implementation;
  for (std::size_t m = 0; m < k->m_members.body->node_count(); ++m) {
    const std::vector<View> in = k->m_members.member_inputs(ctx, m);
    // Preparation never asks for outputs: the parent is only read.
    MemberContext member(const_cast<KernelContext&>(ctx), k->m_members, m, in);
    auto prepared = prepare_library_kernel(member);
    if (prepared) {
      ++on_library;
      if (implementation.empty()) implementation = prepared->implementation;
      k->scratch_bytes = std::max(k->scratch_bytes, prepared->scratch_bytes);
      k->packed_bytes += prepared->packed_bytes;
    }
    k->m_prepared.push_back(std::move(prepared));
  }
  if (on_library == 0) return nullptr;
  k->implementation = "merged members on " + implementation;
  return k;
}

}  // namespace

void register_merged(LibraryRegistry& r) { r.add(kernel_key("weft", "Merged"), prepare_merged); }

}  // namespace weft::core::detail::library
