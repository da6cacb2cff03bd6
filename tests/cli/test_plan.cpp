#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include <string>
#include <sys/wait.h>

#include "weft/core/allocation_problem.h"
#include "weft/core/file_io.h"
#include "weft/core/intervals.h"
#include "weft/core/memory_planner.h"
#include "weft/core/plan_checker.h"

using namespace weft;

namespace {

using CliRun = weft::test::CliResult;
CliRun run_weft(const std::string& args) { return weft::test::run_cli(args, weft::test::StderrMode::Discard); }
std::string data(const std::string& rel) { return std::string(WEFT_TEST_DATA_DIR) + "/" + rel; }

}  // namespace

// `weft plan --intervals --json` gives arena, bound and an offset per id that really is a valid placement.
TEST(CliPlan, IntervalsJson) {
  const std::string csv = data("minimalloc/A.csv");
  const CliRun r = run_weft("plan --intervals " + csv + " --search-ms 200 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  const std::int64_t arena = j.at("arena_bytes").get<std::int64_t>();
  const std::int64_t bound = j.at("lower_bound_bytes").get<std::int64_t>();
  EXPECT_EQ(bound, 1048576);
  EXPECT_GE(arena, bound);
  EXPECT_NEAR(j.at("ratio").get<double>(), static_cast<double>(arena) / static_cast<double>(bound), 1e-9);
  auto text = core::read_file(csv);
  ASSERT_TRUE(text);
  auto inst = core::parse_minimalloc_csv(*text);
  ASSERT_TRUE(inst);
  ASSERT_EQ(j.at("offsets").size(), inst->ids.size());
  core::Placement pl;
  pl.arena_bytes = arena;
  for (const std::string& id : inst->ids) pl.offset.push_back(j.at("offsets").at(id).get<std::int64_t>());
  EXPECT_TRUE(core::check_placement(core::interval_problem(*inst), pl));
  EXPECT_EQ(j.at("planners").size(), core::planner_names().size());
}

// The text form names every planner with its ratio; errors map to exit codes.
TEST(CliPlan, IntervalsTextAndErrors) {
  const CliRun r = run_weft("plan --intervals " + data("minimalloc/B.csv") + " --search-ms 50");
  ASSERT_EQ(r.code, 0);
  for (const std::string& name : core::planner_names()) EXPECT_NE(r.out.find(name), std::string::npos) << name;
  EXPECT_NE(r.out.find("lower bound 1048576"), std::string::npos) << r.out;
  EXPECT_EQ(run_weft("plan --intervals /nonexistent.csv").code, 3);  // unreadable file: runtime error
  EXPECT_EQ(run_weft("plan --intervals " + data("minimalloc/B.csv") + " --planner nope").code, 1);
  EXPECT_EQ(run_weft("plan --intervals " + data("minimalloc/B.csv") + " --search-steps -1").code, 1);
  EXPECT_EQ(run_weft("plan --intervals " + data("models/resnet50.onnx")).code, 2);  // not a CSV
}

// On a real model: --json has the bounds and one entry per planned tensor; arena >= bound >= linear parts.
TEST(CliPlan, ModelJson) {
  // Exit 4 is an internal error (a plan the checker rejects, a broken invariant): a failure, never a skip.
  const CliRun r = weft::test::run_cli("plan " + data("models/googlenet.onnx") + " --json --search-ms 20",
                                       weft::test::StderrMode::Separate);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const std::int64_t arena = j.at("arena_bytes").get<std::int64_t>();
  EXPECT_GE(arena, j.at("lower_bound_bytes").get<std::int64_t>());
  EXPECT_TRUE(j.at("lower_bound_exact").get<bool>());  // a few hundred tensors: the exact flow
  EXPECT_GE(j.at("no_reuse_bytes").get<std::int64_t>(), arena);
  EXPECT_GE(j.at("sequential_arena_bytes").get<std::int64_t>(), j.at("linear_lower_bound_bytes").get<std::int64_t>());
  EXPECT_GT(j.at("tensors").size(), 50u);
  for (const auto& t : j.at("tensors")) {
    EXPECT_EQ(t.at("offset").get<std::int64_t>() % 256, 0);
    EXPECT_LE(t.at("offset").get<std::int64_t>() + t.at("size").get<std::int64_t>(), arena);
  }
}

// `weft plan` takes the shared schedule options: chains made for CUDA Graph replay spreads
// googlenet over streams (eager keeps one), and the plan of that schedule still covers its bound.
TEST(CliPlan, ScheduleOptionsReachTheStrategy) {
  const CliRun eager = run_weft("plan " + data("models/googlenet.onnx") + " --strategy chains --json --search-ms 20");
  ASSERT_EQ(eager.code, 0) << eager.out;
  const CliRun graph = run_weft("plan " + data("models/googlenet.onnx") + " --strategy chains --graph --json --search-ms 20");
  ASSERT_EQ(graph.code, 0) << graph.out;
  const auto e = nlohmann::json::parse(eager.out);
  const auto g = nlohmann::json::parse(graph.out);
  EXPECT_EQ(e.at("streams").get<int>(), 1);
  EXPECT_GT(g.at("streams").get<int>(), 1);
  EXPECT_GE(g.at("arena_bytes").get<std::int64_t>(), g.at("lower_bound_bytes").get<std::int64_t>());
  EXPECT_EQ(run_weft("plan " + data("models/googlenet.onnx") + " --strategy chains --streams 0").code, 1);
}
