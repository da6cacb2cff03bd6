// `weft schedule` and `weft validate` on real models, through the built binary.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "weft/core/strategy/registry.h"

#include "cli_runner.h"

namespace {

using Result = weft::test::CliResult;
Result run_weft(const std::string& args) { return weft::test::run_cli(args); }
std::string model(const std::string& name) { return weft::test::model_path(name); }
std::string temp(const std::string& name) { return weft::test::temp_path(name); }
using weft::test::contains;

}  // namespace

// --compare lists every strategy; on googlenet seed-greedy crosses every one of its 165 edges.
TEST(CliSchedule, CompareGooglenet) {
  // --granularity 0: with the real cost model googlenet's operators (~5-8 us on h100-sxm) fall
  // under the default granularity (one event record + wait, doubled) and would stay on one stream.
  const Result r = run_weft("schedule " + model("googlenet") + " --compare --json --granularity 0");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  // Every registered strategy has a row, search included (it stops at its --budget-ms).
  const auto names = weft::core::strategy_names();
  ASSERT_EQ(j["strategies"].size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(j["strategies"][i]["strategy"], names[i]);
  for (const auto& row : j["strategies"]) {
    if (row["strategy"] == "sequential") {
      EXPECT_EQ(row["streams"], 1);
      EXPECT_EQ(row["events"], 0);
    }
    if (row["strategy"] == "seed-greedy") {
      EXPECT_EQ(row["x-edges"], 165);
    }
    if (row["strategy"] == "chains") {
      EXPECT_EQ(row["streams"], 4);  // googlenet's max antichain (granularity 0: no operator kept back)
    }
    EXPECT_GE(row["speedup"].get<double>(), 1.0 - 1e-9);
  }
  const Result table = run_weft("schedule " + model("googlenet") + " --compare");
  ASSERT_EQ(table.code, 0) << table.out;
  EXPECT_TRUE(contains(table.out, "ideal makespan us"));
  EXPECT_TRUE(contains(table.out, "resource-aware"));
}

// --json has strategy, streams (lists of keys), events {from, to}, makespan_us; a chain model
// scheduled by chains needs one stream and no events.
TEST(CliSchedule, JsonOutputOnAChainModel) {
  const Result r = run_weft("schedule " + model("mobilenet_v3_large") + " --strategy chains --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["strategy"], "chains");
  ASSERT_EQ(j["streams"].size(), 1u);
  EXPECT_EQ(j["streams"][0].size(), 161u);
  EXPECT_TRUE(j["events"].empty());
  EXPECT_GT(j["makespan_us"].get<double>(), 0);
  EXPECT_TRUE(j.contains("event_host_us"));
  EXPECT_TRUE(j.contains("warnings"));
}

// -o writes the schedule JSON that validate accepts; validate refuses edited and foreign files with exit 2.
TEST(CliSchedule, WriteThenValidate) {
  const std::string path = temp("weft_cli_googlenet_schedule.json");
  const Result r = run_weft("schedule " + model("googlenet") + " --strategy cp-list --streams 3 --granularity 0 -o " + path);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "ideal makespan"));
  const Result ok = run_weft("validate " + model("googlenet") + " " + path);
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_TRUE(contains(ok.out, "valid: ")) << ok.out;

  const Result other = run_weft("validate " + model("resnet50") + " " + path);
  EXPECT_EQ(other.code, 2) << other.out;
  EXPECT_TRUE(contains(other.out, "another model")) << other.out;

  auto j = nlohmann::json::parse(std::ifstream(path));
  j["events"] = nlohmann::json::array();
  const std::string bad = temp("weft_cli_googlenet_noevents.json");
  std::ofstream(bad) << j.dump();
  const Result missing = run_weft("validate " + model("googlenet") + " " + bad);
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_TRUE(contains(missing.out, "is not enforced")) << missing.out;
  std::filesystem::remove(path);
  std::filesystem::remove(bad);
}

// Usage errors exit 1; a cap above 8 warns.
TEST(CliSchedule, UsageAndWarnings) {
  EXPECT_EQ(run_weft("schedule " + model("squeezenet1_1")).code, 1);
  EXPECT_EQ(run_weft("schedule " + model("squeezenet1_1") + " --strategy nope").code, 1);
  EXPECT_EQ(run_weft("schedule " + model("squeezenet1_1") + " --strategy chains --streams 0").code, 1);
  const Result w = run_weft("schedule " + model("squeezenet1_1") + " --strategy level-rr --streams 12");
  EXPECT_EQ(w.code, 0) << w.out;
  EXPECT_TRUE(contains(w.out, "warning: a cap of 12 streams is above")) << w.out;
  EXPECT_EQ(run_weft("validate " + model("squeezenet1_1")).code, 1);
}
