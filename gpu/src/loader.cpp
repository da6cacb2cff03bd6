// The programs' side of the CUDA module: finds libweft_cuda.so, loads it once (dlopen), checks
// that it comes from this build, and forwards the public gpu:: functions to its table. Nothing
// here includes a CUDA header or links a CUDA library.
#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <string_view>

#include "module_api.h"
#include "weft/gpu/cuda_executor.h"
#include "weft/gpu/devices.h"

#ifndef WEFT_CUDA_MODULE_BUILT
#define WEFT_CUDA_MODULE_BUILT 0
#endif

namespace weft::gpu {
namespace {

namespace fs = std::filesystem;
using detail::ModuleApi;

constexpr const char* kModuleFile = "libweft_cuda.so";
constexpr const char* kRerunVariable = "WEFT_CUDA_RERUN";
constexpr const char* kFaultVariable = "WEFT_CUDA_FAULT";  // the first run's fault, for the rerun's report

struct Loaded {
  const ModuleApi* api = nullptr;
  std::string path;
  core::Error error;
};

core::Error runtime(std::string message) { return core::make_error(core::ErrorKind::Runtime, std::move(message)); }

#ifndef WEFT_MODULE_FROM_BINDIR
#define WEFT_MODULE_FROM_BINDIR "../lib/weft"
#endif

/// Folders beside the running program where a module may sit: the bundle keeps it in lib/, an
/// installation (`cmake --install`, the Debian package) in <libdir>/weft/, i.e.
/// WEFT_MODULE_FROM_BINDIR from the program's folder; ../lib/ for older layouts.
std::vector<fs::path> program_folders() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path dir = exe.parent_path();
  return {dir, dir / "lib", (dir / WEFT_MODULE_FROM_BINDIR).lexically_normal(), dir.parent_path() / "lib"};
}

/// dlopen's own message names the file that failed (the module, or a library it needs).
std::string dl_message() {
  const char* e = dlerror();
  return e ? std::string(e) : std::string("unknown dlopen error");
}

Loaded open_module(const std::string& path, bool named) {
  Loaded l;
  // RTLD_LOCAL: the module's symbols (and the copy of weft_core inside it) stay private.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    l.error = runtime("cannot load the CUDA module " + path + ": " + dl_message());
    return l;
  }
  // Never dlclose: executors and the CUDA context live until the process ends.
  using Entry = const ModuleApi* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(handle, "weft_cuda_module_v1"));
  if (!entry) {
    l.error = runtime("cannot load the CUDA module " + path + ": it has no weft_cuda_module_v1 entry point");
    return l;
  }
  const ModuleApi* api = entry();
  if (!api || api->abi != detail::kModuleAbi || !(api->sizes == detail::AbiSizes{})) {
    l.error = runtime("cannot use the CUDA module " + path + ": it comes from another weft build (module ABI " +
                      std::to_string(api ? api->abi : -1) + ", this program expects " + std::to_string(detail::kModuleAbi) +
                      (api && api->abi == detail::kModuleAbi ? ", types differ" : "") + "); use the libweft_cuda.so built with it");
    return l;
  }
  char resolved[4096] = {};
  if (!named) {
    // Found through RUNPATH or LD_LIBRARY_PATH: report the file the loader picked.
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(entry), &info) && info.dli_fname) std::snprintf(resolved, sizeof resolved, "%s", info.dli_fname);
  }
  l.api = api;
  l.path = resolved[0] ? resolved : path;
  return l;
}

Loaded find_and_open() {
  if (const char* forced = std::getenv("WEFT_CUDA_MODULE"); forced && *forced) return open_module(forced, true);
  std::string looked;
  for (const fs::path& dir : program_folders()) {
    const fs::path candidate = dir / kModuleFile;
    std::error_code ec;
    // A module that exists but fails to load is the answer: its error names the missing library.
    if (fs::exists(candidate, ec)) return open_module(candidate.lexically_normal().string(), true);
    looked += (looked.empty() ? "" : ", ") + dir.lexically_normal().string();
  }
  // The program's RUNPATH (the build tree's module folder) and LD_LIBRARY_PATH.
  Loaded l = open_module(kModuleFile, false);
  if (l.api) return l;
  const std::string message = l.error.message;
  if (message.find(std::string(kModuleFile) + ": cannot open shared object file") == std::string::npos) return l;
  l.error = runtime(std::string(WEFT_CUDA_MODULE_BUILT ? "the CUDA module " : "this weft was built without CUDA: the CUDA module ") +
                    kModuleFile + " was not found (looked in " + looked +
                    ", the program's RUNPATH and LD_LIBRARY_PATH; WEFT_CUDA_MODULE=PATH names it)");
  return l;
}

const Loaded& loaded() {
  static Loaded l;
  static std::once_flag once;
  std::call_once(once, [] { l = find_and_open(); });
  return l;
}

}  // namespace

const ModuleApi* detail::module_api() { return loaded().api; }

namespace {

class UnavailableExecutor final : public core::Executor {
 public:
  explicit UnavailableExecutor(core::Error e) : m_error(std::move(e)) {}
  std::string name() const override { return "cuda"; }
  core::Expected<core::RunResult> run(const core::Graph&, const core::Schedule&, const core::MemoryPlan&, const core::RunOptions&) override {
    return m_error;
  }

 private:
  core::Error m_error;
};

}  // namespace

bool built_with_cuda() { return WEFT_CUDA_MODULE_BUILT != 0; }

core::Expected<std::string> load_cuda_module() {
  const Loaded& l = loaded();
  if (!l.api) return l.error;
  return l.path;
}

core::Expected<CudaRuntimeInfo> cuda_runtime_info() {
  const Loaded& l = loaded();
  if (!l.api) return l.error;
  auto info = l.api->runtime_info();
  if (info) {
    info->module_path = l.path;
    info->built_against = l.api->built_against;
  }
  return info;
}

core::Expected<std::vector<GpuInfo>> list_gpus() {
  const Loaded& l = loaded();
  if (!l.api) return l.error;
  return l.api->list_gpus();
}

core::DeviceSpec with_launch_costs(core::DeviceSpec preset, const LaunchCosts& measured) {
  preset.launch_us = measured.launch_us;
  preset.kernel_min_us = measured.graph_chain_us;
  preset.graph_launch_per_node_us = measured.graph_per_node_us;
  preset.event_record_us = measured.event_record_us;
  preset.event_wait_us = measured.event_wait_us;
  preset.source += (preset.source.empty() ? "" : "; ") + std::string("launch figures measured on ") + measured.name +
                   " (GPU " + std::to_string(measured.device) + ") by weft calibrate --backend cuda";
  return preset;
}

core::Expected<LaunchCosts> measure_launch_costs(int device, int kernels) {
  if (kernels < 16 || kernels > 100000)
    return core::make_error(core::ErrorKind::InvalidInput, "empty kernels per round must be in 16..100000, got " + std::to_string(kernels));
  const Loaded& l = loaded();
  if (!l.api) return l.error;
  return l.api->measure_launch_costs(device, kernels);
}

std::unique_ptr<core::Executor> make_cuda_executor(const CudaRunOptions& options) {
  const Loaded& l = loaded();
  if (!l.api) return std::make_unique<UnavailableExecutor>(l.error);
  if (core::Executor* e = l.api->make_executor(options)) return std::unique_ptr<core::Executor>(e);
  return std::make_unique<UnavailableExecutor>(core::make_error(core::ErrorKind::Internal, "the CUDA module could not create an executor"));
}

std::vector<std::string> cuda_supported_ops() {
  const Loaded& l = loaded();
  return l.api ? l.api->supported_ops() : std::vector<std::string>{};
}

core::Status cuda_check_supported(const core::Graph& graph) {
  const Loaded& l = loaded();
  if (!l.api) return l.error;
  return l.api->check_supported(graph);
}

bool cuda_context_faulted() {
  const Loaded& l = loaded();
  return l.api && l.api->sticky_fault() != 0;
}

bool is_blocking_rerun() {
  const char* v = std::getenv(kRerunVariable);
  return v && *v;
}

std::string rerun_fault() {
  const char* v = std::getenv(kFaultVariable);
  return v ? std::string(v) : std::string();
}

bool launches_blocking() {
  const char* v = std::getenv("CUDA_LAUNCH_BLOCKING");
  return v && std::string_view(v) == "1";
}

core::Error rerun_with_blocking_launches(std::string_view fault) {
  if (is_blocking_rerun()) return runtime("not rerunning: this already is the rerun with blocking launches");
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string arg; std::getline(in, arg, '\0');) args.push_back(arg);
  if (args.empty()) return runtime("not rerunning: /proc/self/cmdline is unreadable");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::setenv("CUDA_LAUNCH_BLOCKING", "1", 1);
  ::setenv(kRerunVariable, "1", 1);
  ::setenv(kFaultVariable, std::string(fault.substr(0, 4000)).c_str(), 1);
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::execv("/proc/self/exe", argv.data());
  return runtime(std::string("not rerunning: execv(/proc/self/exe) failed: ") + std::strerror(errno));
}

}  // namespace weft::gpu
