// The Python module `weft`: module-level functions, the version and features of the build, and
// the exceptions Weft's errors become. The classes are in the bind_*.cpp files; docs/python.md is the
// tutorial.
#include <pybind11/stl.h>

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

#include "weft/build_info.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/strategy/registry.h"
#include "weft/gpu/devices.h"
#include "weft_python.h"

namespace weft::python {

namespace {

// The exception classes, created once at import (module objects live until interpreter exit).
py::handle g_error, g_usage, g_invalid, g_runtime, g_internal;

py::handle new_exception(py::module_& m, const char* name, py::handle base, PyObject* builtin, const char* doc) {
  py::tuple bases = builtin ? py::make_tuple(base, py::handle(builtin)) : py::make_tuple(base);
  const std::string qualified = std::string("weft.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (!cls) throw py::error_already_set();
  m.add_object(name, py::handle(cls));
  return cls;
}

const char* kind_name(core::ErrorKind kind) {
  switch (kind) {
    case core::ErrorKind::Usage: return "usage";
    case core::ErrorKind::InvalidInput: return "invalid-input";
    case core::ErrorKind::Runtime: return "runtime";
    case core::ErrorKind::Internal: return "internal";
  }
  return "internal";
}

/// Installed as <prefix>/lib/python3/dist-packages/weft*.so: the assets are in
/// <prefix>/share/weft/assets. The library looks beside the running program (python3 here), so
/// tell it through WEFT_ASSETS_DIR, unless the caller set it or the folder is not there (a build
/// tree: the library falls back to the source tree's assets).
void find_installed_assets() {
  if (const char* set = std::getenv("WEFT_ASSETS_DIR"); set && *set) return;
  namespace fs = std::filesystem;
  // The module's own file (its __file__ is set only after initialisation).
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&find_installed_assets), &info) || !info.dli_fname) return;
  std::error_code ec;
  const fs::path module_file = fs::canonical(info.dli_fname, ec);
  if (ec) return;
  const fs::path prefix = module_file.parent_path().parent_path().parent_path().parent_path();
  const fs::path assets = prefix / "share" / "weft" / "assets";
  if (fs::is_directory(assets / "devices", ec)) ::setenv("WEFT_ASSETS_DIR", assets.c_str(), 0);
}

}  // namespace

void raise(const core::Error& error) {
  py::handle cls = g_internal;
  switch (error.kind) {
    case core::ErrorKind::Usage: cls = g_usage; break;
    case core::ErrorKind::InvalidInput: cls = g_invalid; break;
    case core::ErrorKind::Runtime: cls = g_runtime; break;
    case core::ErrorKind::Internal: cls = g_internal; break;
  }
  py::object e = cls(error.message);
  e.attr("kind") = kind_name(error.kind);
  e.attr("message") = error.message;
  PyErr_SetObject(cls.ptr(), e.ptr());
  throw py::error_already_set();
}

void register_errors(py::module_& m) {
  g_error = new_exception(m, "Error", py::handle(PyExc_Exception), nullptr,
                          "A Weft error: .kind ('usage', 'invalid-input', 'runtime', 'internal') and .message "
                          "(names the problem and where: file, node, tensor).");
  g_usage = new_exception(m, "UsageError", g_error, PyExc_ValueError, "A bad argument (kind 'usage').");
  g_invalid = new_exception(m, "InvalidInputError", g_error, PyExc_ValueError,
                            "An unreadable, hostile or inconsistent model, schedule or name (kind 'invalid-input').");
  g_runtime = new_exception(m, "RuntimeFailure", g_error, PyExc_RuntimeError,
                            "A device or environment failure: no GPU, out of memory, I/O (kind 'runtime').");
  g_internal = new_exception(m, "InternalError", g_error, nullptr, "A bug in Weft (kind 'internal').");
}

}  // namespace weft::python

PYBIND11_MODULE(weft, m) {
  namespace py = pybind11;
  namespace b = weft::build;
  namespace core = weft::core;
  m.doc() = "Weft: parallel schedules of neural-network graphs (analyse, schedule, plan, simulate, run, export).";
  m.attr("__version__") = std::string(b::kVersion);
  weft::python::find_installed_assets();
  weft::python::register_errors(m);
  weft::python::register_schedule(m);
  weft::python::register_results(m);
  weft::python::register_model(m);

  m.def(
      "features",
      [] {
        py::dict d;
        d["version"] = std::string(b::kVersion);
        d["build_type"] = std::string(b::kBuildType);
        d["cuda_module"] = b::kCudaModule;
        d["cuda_version"] = std::string(b::kCudaVersion);
        d["cudnn_version"] = std::string(b::kCudnnVersion);
        d["studio"] = b::kStudio;
        d["qt_version"] = std::string(b::kQtVersion);
        d["python_version"] = std::string(b::kPythonVersion);
        d["onnx_version"] = std::string(b::kOnnxVersion);
        d["protobuf_version"] = std::string(b::kProtobufVersion);
        d["blas"] = std::string(b::kBlas);
        d["assets_dir"] = core::assets_dir();
        return d;
      },
      "What this build contains, as `weft --version` prints it (CUDA module, cuDNN, Qt, ...).");
  m.def(
      "strategies",
      [] {
        py::list out;
        for (const core::StrategyInfo& s : core::strategy_list()) {
          py::dict d;
          d["name"] = s.name;
          d["description"] = s.description;
          d["iterative"] = s.iterative;
          out.append(d);
        }
        return out;
      },
      "The registered strategies: name, description, iterative (searches under a budget).");
  m.def(
      "gpus",
      [] {
        auto gpus = weft::gpu::list_gpus();
        if (!gpus) weft::python::raise(gpus.error());
        py::list out;
        for (const weft::gpu::GpuInfo& g : *gpus) {
          py::dict d;
          d["index"] = g.index;
          d["name"] = g.name;
          d["sm_count"] = g.sm_count;
          d["memory_bytes"] = g.memory_bytes;
          d["compute_capability"] = std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor);
          out.append(d);
        }
        return out;
      },
      "The CUDA GPUs (loads the CUDA module). RuntimeFailure naming what is missing: the module, a library, "
      "the driver or a device.");
  m.def(
      "launch_costs",
      [](int gpu, int kernels) {
        // Timed with the GIL released; raised, if need be, once it is held again.
        auto measured = [&] {
          py::gil_scoped_release release;
          return weft::gpu::measure_launch_costs(gpu, kernels);
        }();
        if (!measured) weft::python::raise(measured.error());
        const weft::gpu::LaunchCosts& c = *measured;
        py::dict d;
        d["gpu"] = c.device;
        d["name"] = c.name;
        d["kernels"] = c.kernels;
        d["rounds"] = c.rounds;
        for (const auto& [name, value] : c.figures()) d[name] = value;
        return d;
      },
      py::arg("gpu") = 0, py::arg("kernels") = 500,
      "A GPU's launch figures timed with empty kernels, as `weft calibrate --backend cuda` measures them (host "
      "per eager launch, the kernel floor of a replayed chain, a replayed graph's release per node, event record "
      "and wait). InvalidInputError for a bad count; RuntimeFailure without a GPU, naming why.");
  m.def("devices", &core::device_names, "Names of the device presets (cost models) in the assets folder.");
  m.def("default_device", [] { return std::string(core::default_device_name()); });
  m.def("planners", &core::planner_names, "Names of the memory planners (plan(planner=...)); '' runs every one.");
}
