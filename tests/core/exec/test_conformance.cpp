// Runs every ONNX backend conformance case (onnx-conformance.sh) on the CPU executor, imported with
// folding off so the operator under test runs, and compares every output file with the reference
// (fp32: rtol 1e-3, atol 1e-4; ints and bools exact), twice: on the reference kernels (the
// oracle) and on the library kernels (oneDNN where it takes a node), each set held to the floor. Counting is honest: a case is "unsupported"
// only when the executor refuses an operator (or an operator's feature) that docs/operators.md
// lists under "Not supported"; an import failure, an unreadable or missing input/output file, an
// input-count mismatch or a missing output is a failure. The test fails on any failure and when
// passes drop below kPassFloor. Skips (77) when the cases were not generated.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "test_paths.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/memory/memory_plan.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/proto/tensor_pb.h"

namespace fs = std::filesystem;
using namespace weft;

namespace {

// Passes may only go up: raise this as kernels land.
constexpr int kPassFloor = 839;

// BadData: the case's own files contradict its model (an input file's shape differs from the
// static shape the model declares; ONNX 1.12's CastLike bfloat16 cases), so no runtime can run it.
enum class Outcome { Passed, Failed, Unsupported, BadData };

struct CaseResult {
  Outcome outcome = Outcome::Failed;
  std::string reason;
};

/// One row of docs/operators.md's "Not supported" table: an operator (domain-qualified outside the
/// default domain, "*" for any) and the feature the refusal names ("" for the whole operator).
struct Gap {
  std::string op;
  std::string feature;
};

fs::path find_cases() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("WEFT_CONFORMANCE_DIR")) candidates.emplace_back(env);
#ifdef WEFT_CONFORMANCE_BUILD_DIR
  candidates.emplace_back(weft::test::beside_program(WEFT_CONFORMANCE_BUILD_DIR));
#endif
  std::error_code ec;
  for (const auto& c : candidates) {
    if (fs::is_directory(c / "node", ec)) return c / "node";
    if (fs::is_directory(c, ec) && fs::exists(c / "test_abs" / "model.onnx", ec)) return c;
  }
  return {};
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" `");
  const auto e = s.find_last_not_of(" `");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

/// The rows of the "Not supported" section: `| \`Op\` | feature | why |`.
std::vector<Gap> documented_gaps(const std::string& path, bool& found) {
  std::ifstream in(path);
  found = in.good();
  std::vector<Gap> gaps;
  bool section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) section = line.find("Not supported") != std::string::npos;
    if (!section || line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    for (std::size_t p = 1, q; (q = line.find('|', p)) != std::string::npos; p = q + 1) cells.push_back(trim(line.substr(p, q - p)));
    if (cells.size() >= 2) gaps.push_back({cells[0], cells[1]});
  }
  return gaps;
}

/// The operator an "unsupported" error names: "operator 'X' has no CPU kernel" or "node 'n' (X): ...".
std::string op_named(const std::string& message) {
  if (auto p = message.find("operator '"); p != std::string::npos) {
    p += 10;
    return message.substr(p, message.find('\'', p) - p);
  }
  if (auto p = message.find("' ("); p != std::string::npos) {
    p += 3;
    return message.substr(p, message.find(')', p) - p);
  }
  return {};
}

bool is_documented_gap(const std::vector<Gap>& gaps, const std::string& message) {
  if (message.find("unsupported") == std::string::npos) return false;
  const std::string op = op_named(message);
  for (const Gap& g : gaps)
    if ((g.op == "*" || (!op.empty() && g.op == op)) && (g.feature.empty() || message.find(g.feature) != std::string::npos))
      return true;
  return false;
}

/// A half-precision element as float (float16: IEEE binary16; bfloat16: a float32's high half).
float half_to_float(std::uint16_t h, bool bfloat) {
  if (bfloat) {
    const std::uint32_t u = static_cast<std::uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  const int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  if (exp == 0) return sign * std::ldexp(static_cast<float>(man), -24);
  if (exp == 31) return man ? std::numeric_limits<float>::quiet_NaN() : sign * std::numeric_limits<float>::infinity();
  return sign * std::ldexp(static_cast<float>(man + 1024), exp - 25);
}

// Half outputs: within two units in the last place (float16: 2^-10 relative; bfloat16: 2^-7,
// which also accepts ONNX 1.12's Cast reference, which truncates to bfloat16 where the helper
// and later ONNX round to nearest-even).
bool same_half_values(const core::HostTensor& got, const core::HostTensor& want, bool bfloat, std::string& why) {
  const std::size_t n = want.bytes.size() / 2;
  const double rel = bfloat ? 0x1p-7 : 0x1p-10;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint16_t ha, hb;
    std::memcpy(&ha, got.bytes.data() + 2 * i, 2);
    std::memcpy(&hb, want.bytes.data() + 2 * i, 2);
    const double a = half_to_float(ha, bfloat), b = half_to_float(hb, bfloat);
    if ((std::isnan(a) && std::isnan(b)) || a == b) continue;
    if (!(std::abs(a - b) <= 1e-4 + 2 * rel * std::abs(b))) {
      why = "element " + std::to_string(i) + ": got " + std::to_string(a) + ", want " + std::to_string(b);
      return false;
    }
  }
  return true;
}

template <class T>
bool same_values(const core::HostTensor& got, const core::HostTensor& want, std::string& why) {
  const std::size_t n = want.bytes.size() / sizeof(T);
  std::vector<T> a(n), b(n);
  std::memcpy(a.data(), got.bytes.data(), n * sizeof(T));
  std::memcpy(b.data(), want.bytes.data(), n * sizeof(T));
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(b[i]) && std::isnan(a[i])) continue;
      if (std::isinf(b[i]) && a[i] == b[i]) continue;
      const double diff = std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
      if (!(diff <= 1e-4 + 1e-3 * std::abs(static_cast<double>(b[i])))) {
        why = "element " + std::to_string(i) + ": got " + std::to_string(a[i]) + ", want " + std::to_string(b[i]);
        return false;
      }
    } else if (a[i] != b[i]) {
      why = "element " + std::to_string(i) + " differs";
      return false;
    }
  }
  return true;
}

bool compare(const core::HostTensor& got, const core::HostTensor& want, std::string& why) {
  if (got.dtype != want.dtype) {
    why = "dtype " + std::string(core::dtype_name(got.dtype)) + " vs " + std::string(core::dtype_name(want.dtype));
    return false;
  }
  if (got.shape != want.shape) {
    why = "shape differs";
    return false;
  }
  if (got.bytes.size() != want.bytes.size()) {
    why = "byte size differs";
    return false;
  }
  switch (want.dtype) {
    case core::DType::Float32: return same_values<float>(got, want, why);
    case core::DType::Float64: return same_values<double>(got, want, why);
    case core::DType::Float16: return same_half_values(got, want, false, why);
    case core::DType::BFloat16: return same_half_values(got, want, true, why);
    default:
      if (got.bytes != want.bytes) why = "bytes differ";
      return got.bytes == want.bytes;
  }
}

std::size_t count_files(const fs::path& dir, const std::string& prefix) {
  std::size_t n = 0;
  while (fs::exists(dir / (prefix + std::to_string(n) + ".pb"))) ++n;
  return n;
}

CaseResult run_case(const fs::path& dir, const std::vector<Gap>& gaps, core::KernelSet kernels, std::int64_t& library_nodes) {
  auto refused = [&](const std::string& message) {
    return CaseResult{is_documented_gap(gaps, message) ? Outcome::Unsupported : Outcome::Failed, message};
  };
  core::ImportOptions io;
  io.fold = false;
  auto graph = core::import_onnx((dir / "model.onnx").string(), io);
  if (!graph) return {Outcome::Failed, "import: " + graph.error().message};
  if (auto s = core::cpu_check_supported(*graph); !s) return refused(s.error().message);
  const fs::path data = dir / "test_data_set_0";
  core::RunOptions options;
  options.warmup = 0;
  options.kernels = kernels;
  const auto inputs = graph->inputs();
  const std::size_t input_files = count_files(data, "input_");
  if (input_files != inputs.size())
    return {Outcome::Failed, std::to_string(input_files) + " input files for " + std::to_string(inputs.size()) + " graph inputs"};
  for (std::size_t i = 0; i < input_files; ++i) {
    auto t = core::read_tensor_pb((data / ("input_" + std::to_string(i) + ".pb")).string());
    if (!t) return {Outcome::Failed, "input: " + t.error().message};
    // ONNX 1.12's generator writes bfloat16 data as uint16 (numpy has no bfloat16): same bits.
    if (t->dtype == core::DType::UInt16 && graph->tensor(inputs[i]).dtype == core::DType::BFloat16) t->dtype = core::DType::BFloat16;
    const core::Tensor& declared = graph->tensor(inputs[i]);
    if (declared.shape_known() && declared.shape() != t->shape)
      return {Outcome::BadData, "input_" + std::to_string(i) + ".pb's shape differs from the model's " + core::format_shape(declared)};
    options.inputs[graph->tensor(inputs[i]).name] = std::move(*t);
  }
  core::Schedule schedule;
  schedule.streams.emplace_back(graph->topo_order().begin(), graph->topo_order().end());
  auto result = core::make_cpu_executor()->run(*graph, schedule, core::plan_no_reuse(*graph), options);
  if (!result) return refused(result.error().message);
  for (const auto& [path, nodes] : result->kernel_paths)
    if (path != "reference") library_nodes += nodes;
  const auto outputs = graph->outputs();
  const std::size_t output_files = count_files(data, "output_");
  if (output_files != outputs.size())
    return {Outcome::Failed, std::to_string(output_files) + " output files for " + std::to_string(outputs.size()) + " graph outputs"};
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    auto want = core::read_tensor_pb((data / ("output_" + std::to_string(i) + ".pb")).string());
    if (!want) return {Outcome::Failed, "output: " + want.error().message};
    if (want->dtype == core::DType::UInt16 && graph->tensor(outputs[i]).dtype == core::DType::BFloat16) want->dtype = core::DType::BFloat16;
    const auto it = result->outputs.find(graph->tensor(outputs[i]).name);
    if (it == result->outputs.end()) return {Outcome::Failed, "output " + std::to_string(i) + " missing from the run"};
    std::string why;
    if (!compare(it->second, *want, why)) return {Outcome::Failed, "output " + std::to_string(i) + ": " + why};
  }
  return {Outcome::Passed, {}};
}

}  // namespace

int main() {
  const fs::path root = find_cases();
  if (root.empty()) {
    std::cout << "conformance cases not found (set WEFT_CONFORMANCE_DIR or run scripts/onnx-conformance.sh); skipped\n";
    return 77;
  }
  bool doc_found = false;
  const std::vector<Gap> gaps = documented_gaps(WEFT_OPERATORS_DOC, doc_found);
  if (!doc_found) {
    std::cout << "cannot read " << WEFT_OPERATORS_DOC << "\n";
    return 1;
  }
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(root))
    if (fs::exists(e.path() / "model.onnx")) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  const bool verbose = std::getenv("WEFT_CONFORMANCE_VERBOSE") != nullptr;
  bool ok = true;
  for (const auto& [kernels, name_of_set] : {std::pair{core::KernelSet::Reference, "reference kernels"},
                                             std::pair{core::KernelSet::Library, "library kernels"}}) {
    int passed = 0, failed = 0, unsupported = 0, bad_data = 0;
    std::int64_t library_nodes = 0;
    for (const auto& c : cases) {
      const CaseResult r = run_case(c, gaps, kernels, library_nodes);
      const std::string name = c.filename().string();
      switch (r.outcome) {
        case Outcome::Passed: ++passed; break;
        case Outcome::Failed:
          ++failed;
          std::cout << "FAILED (" << name_of_set << ") " << name << ": " << r.reason << "\n";
          break;
        case Outcome::BadData:
          ++bad_data;
          if (kernels == core::KernelSet::Reference) std::cout << "bad case data " << name << ": " << r.reason << "\n";
          break;
        case Outcome::Unsupported:
          ++unsupported;
          if (verbose) std::cout << "unsupported " << name << ": " << r.reason << "\n";
          break;
      }
    }
    std::cout << "conformance, " << name_of_set << ": " << passed << " passed / " << failed << " failed / " << unsupported
              << " unsupported / " << bad_data << " with contradictory data (" << cases.size() << " cases in " << root.string()
              << "; " << library_nodes << " nodes on library kernels)\n";
    if (passed < kPassFloor) std::cout << "FAILED: " << passed << " passed, below the floor of " << kPassFloor << "\n";
    ok = ok && failed == 0 && passed >= kPassFloor;
  }
  return ok ? 0 : 1;
}
