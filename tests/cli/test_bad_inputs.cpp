// Replays the malformed-input corpus (tests/data/bad/manifest.json, made by
// scripts/make-bad-corpus.py) through every `weft` command that takes each file (inputs and
// test data through `weft run --inputs` / `--test-data`), and the project files through core's
// .weft parser: each must exit with its code and print its message.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "weft/core/base/project_file.h"

using namespace weft;

namespace {

const std::string kCorpus = std::string(WEFT_TEST_DATA_DIR) + "/bad";

nlohmann::json load_manifest() {
  std::ifstream in(kCorpus + "/manifest.json");
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

const nlohmann::json& manifest() {
  static const nlohmann::json m = load_manifest();
  return m;
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  if (!manifest().is_object()) return {"manifest_unreadable"};
  for (const auto& c : manifest()["cases"]) names.push_back(c["name"].get<std::string>());
  return names;
}

const nlohmann::json* find_case(const std::string& name) {
  if (!manifest().is_object()) return nullptr;
  for (const auto& c : manifest()["cases"])
    if (c["name"] == name) return &c;
  return nullptr;
}

// What any failure must never look like: a crash, an internal error, a sanitizer report.
void expect_clean(const std::string& output, int code) {
  EXPECT_NE(code, -1) << "killed by a signal:\n" << output;
  EXPECT_NE(code, 4) << "internal error:\n" << output;
  for (const char* bad : {"internal error", "AddressSanitizer", "runtime error:", "ThreadSanitizer", "terminate called"})
    EXPECT_EQ(output.find(bad), std::string::npos) << bad << " in:\n" << output;
}

class BadInput : public ::testing::TestWithParam<std::string> {};

}  // namespace

// The corpus is the size at least (30 refused cases), with controls that must pass.
TEST(BadInputCorpus, ManifestCoversTheKinds) {
  ASSERT_TRUE(manifest().is_object()) << "cannot read " << kCorpus << "/manifest.json";
  std::map<std::string, int> refused;
  int controls = 0;
  for (const auto& c : manifest()["cases"]) {
    if (c["code"] == 0) ++controls;
    else ++refused[c["kind"].get<std::string>()];
  }
  int total = 0;
  for (const auto& [kind, n] : refused) total += n;
  EXPECT_GE(total, 30);
  EXPECT_GE(refused["model"], 20);
  EXPECT_GE(refused["schedule"], 5);
  EXPECT_GE(refused["intervals"], 5);
  EXPECT_GE(refused["project"], 5);
  // weft run --inputs / --test-data: missing, unknown, wrong dtype or shape, unreadable or
  // truncated files, outputs that differ (exit 5).
  EXPECT_GE(refused["inputs"], 25);
  EXPECT_GE(controls, 3);
}

// Each case: every command exits with the expected code and names the problem.
TEST_P(BadInput, EveryCommandRefusesItCleanly) {
  const nlohmann::json* c = find_case(GetParam());
  ASSERT_NE(c, nullptr) << "no case " << GetParam() << " in " << kCorpus << "/manifest.json";
  const std::string kind = (*c)["kind"];
  if (kind == "project") {
    // No `weft` command takes a project: core's parser (the studio's loader) is replayed.
    auto p = core::load_project_file(kCorpus + "/" + (*c)["file"].get<std::string>());
    const int code = p ? 0 : core::exit_code(p.error().kind);
    EXPECT_EQ(code, (*c)["code"].get<int>()) << (p ? std::string("parsed") : p.error().message);
    if (!p) {
      EXPECT_NE(p.error().message.find((*c)["message"].get<std::string>()), std::string::npos) << p.error().message;
      EXPECT_NE(p.error().message.find((*c)["file"].get<std::string>()), std::string::npos) << p.error().message;
    }
    return;
  }
  ASSERT_FALSE((*c)["runs"].empty());
  for (const auto& run : (*c)["runs"]) {
    const std::vector<std::string> args = run["args"];
    std::string shown = "weft";
    for (const auto& a : args) shown += " " + a;
    SCOPED_TRACE(shown);
    const test::CliResult r = test::run_argv(args, test::StderrMode::Merge, kCorpus);
    EXPECT_EQ(r.code, run["code"].get<int>()) << r.out;
    EXPECT_NE(r.out.find(run["message"].get<std::string>()), std::string::npos)
        << "expected '" << run["message"].get<std::string>() << "' in:\n" << r.out;
    expect_clean(r.out, r.code);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadInput, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) { return param_info.param; });
