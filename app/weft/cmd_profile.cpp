// `weft profile MODEL FILE`: a measured profile (ONNX Runtime JSON, PyTorch or Weft Chrome trace)
// mapped onto the model, the replay error first (core::open_model maps it, as --profile does for
// every study command).
#include <iostream>

#include "cli.h"
#include "weft/core/profile.h"

namespace weft::cli {

int cmd_profile(Args& args) {
  if (auto ok = args.parse({"json"}, true); !ok) return usage_error("profile", ok.error().message);
  if (args.positional().size() != 2) return usage_error("profile", "expected MODEL and a profile FILE");
  auto model = load_model(args, SplitMode::GraphFlag, std::nullopt, nullptr, args.positional()[1]);
  if (!model) return report("profile", model.error());
  const core::Profile& p = *model->profile;
  std::cout << (args.flag("json") ? core::profile_report_json(*model->graph, p, *model->profile_replay)
                                  : core::profile_report_text(*model->graph, p, *model->profile_replay));
  return 0;
}

}  // namespace weft::cli
