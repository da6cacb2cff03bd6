#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include <string>
#include <sys/wait.h>

#include "weft/core/memory/allocation_problem.h"
#include "weft/core/base/file_io.h"
#include "weft/core/memory/intervals.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/memory/plan_checker.h"
#include "weft/core/memory/plan_json.h"
#include "weft/core/schedule/schedule_json.h"

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

// `weft plan --repair FILE`: a plan written by `weft plan --json` for the sequential schedule,
// repaired for chains under graph replay (several streams): some tensors move, the rest keep
// their offsets, and the result is a valid plan of that schedule (checked here again by core
// against the schedule file); the repaired file read back needs no move. Bad plan files exit 2.
TEST(CliPlan, RepairKeepsOffsetsAndMakesThePlanValid) {
  const std::string model = data("models/googlenet.onnx");
  const CliRun seq = run_weft("plan " + model + " --json --search-ms 20");
  ASSERT_EQ(seq.code, 0) << seq.out;
  const std::string plan_path = weft::test::temp_path("weft_repair_plan_" + std::to_string(::getpid()) + ".json");
  ASSERT_TRUE(core::write_file_atomic(plan_path, seq.out));
  const std::string schedule_path = weft::test::temp_path("weft_repair_schedule_" + std::to_string(::getpid()) + ".json");
  ASSERT_EQ(run_weft("schedule " + model + " --strategy chains --graph -o " + schedule_path).code, 0);

  const CliRun r = run_weft("plan " + model + " --schedule " + schedule_path + " --repair " + plan_path + " --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  const auto before = nlohmann::json::parse(seq.out);
  EXPECT_EQ(j.at("planner").get<std::string>(), "repaired");
  EXPECT_GT(j.at("streams").get<int>(), 1);
  EXPECT_GT(j.at("moved").get<std::int64_t>(), 0);
  EXPECT_GE(j.at("conflicts").get<std::int64_t>(), j.at("moved").get<std::int64_t>() > 0 ? 1 : 0);
  EXPECT_EQ(j.at("previous_arena_bytes").get<std::int64_t>(), before.at("arena_bytes").get<std::int64_t>());
  EXPECT_GE(j.at("arena_bytes").get<std::int64_t>(), j.at("lower_bound_bytes").get<std::int64_t>());
  std::map<std::string, std::int64_t> old_offset;
  for (const auto& t : before.at("tensors")) old_offset[t.at("name").get<std::string>()] = t.at("offset").get<std::int64_t>();
  std::size_t kept = 0;
  for (const auto& t : j.at("tensors")) kept += old_offset.at(t.at("name").get<std::string>()) == t.at("offset").get<std::int64_t>();
  // Only tensors taken out move (one taken out may land where it was).
  EXPECT_LE(j.at("tensors").size() - kept, static_cast<std::size_t>(j.at("moved").get<std::int64_t>()));
  EXPECT_GT(j.at("tensors").size() - kept, 0u);
  EXPECT_GT(kept, j.at("tensors").size() / 2);

  // Core's own check of the repaired plan under the schedule file.
  auto graph = core::import_onnx(model);
  ASSERT_TRUE(graph);
  auto schedule_text = core::read_file(schedule_path);
  ASSERT_TRUE(schedule_text);
  auto schedule = core::schedule_from_json(*graph, *schedule_text);
  ASSERT_TRUE(schedule) << schedule.error().message;
  auto plan = core::plan_from_json(*graph, r.out);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(core::check_plan(*graph, *schedule, *plan));
  EXPECT_FALSE(core::check_plan(*graph, *schedule, *core::plan_from_json(*graph, seq.out)));  // the file was not

  // The repaired plan, repaired again for the same schedule, moves nothing; the text form says so.
  const std::string repaired_path = plan_path + ".repaired";
  ASSERT_TRUE(core::write_file_atomic(repaired_path, r.out));
  const CliRun again = run_weft("plan " + model + " --schedule " + schedule_path + " --repair " + repaired_path);
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find(": 0 of "), std::string::npos) << again.out;

  // Bad plan files and options: exit 2 naming the problem, 1 for usage, 3 for an unreadable file.
  const std::string bad_path = plan_path + ".bad";
  ASSERT_TRUE(core::write_file_atomic(bad_path, R"({"tensors": [{"name": "no_such_tensor", "offset": 0, "size": 256}]})"));
  const CliRun bad = weft::test::run_cli("plan " + model + " --repair " + bad_path, weft::test::StderrMode::Merge);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("no_such_tensor"), std::string::npos) << bad.out;
  ASSERT_TRUE(core::write_file_atomic(bad_path, "{not json"));
  EXPECT_EQ(run_weft("plan " + model + " --repair " + bad_path).code, 2);
  EXPECT_EQ(run_weft("plan " + model + " --repair /nonexistent/plan.json").code, 3);
  // Hostile numbers: sizes off the alignment, a tensor ending past 2^50 bytes (first fit would
  // have wrapped past it), an alignment of 2^63 - 1, a file made with outputs in the arena: each
  // refused with exit 2 naming the problem, never an abort or an invalid plan.
  auto hostile = nlohmann::json::parse(seq.out);
  hostile["tensors"][0]["size"] = hostile["tensors"][0]["size"].get<std::int64_t>() + 8;
  ASSERT_TRUE(core::write_file_atomic(bad_path, hostile.dump()));
  CliRun refused = weft::test::run_cli("plan " + model + " --repair " + bad_path, weft::test::StderrMode::Merge);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.out.find("multiple of the alignment"), std::string::npos) << refused.out;
  nlohmann::json huge{{"tensors", {{{"name", hostile["tensors"][0]["name"]}, {"offset", 0}, {"size", std::numeric_limits<std::int64_t>::max() - 511}}}}};
  ASSERT_TRUE(core::write_file_atomic(bad_path, huge.dump()));
  refused = weft::test::run_cli("plan " + model + " --repair " + bad_path, weft::test::StderrMode::Merge);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.out.find("2^50"), std::string::npos) << refused.out;
  ASSERT_TRUE(core::write_file_atomic(bad_path, R"({"alignment": 9223372036854775807, "tensors": []})"));
  EXPECT_EQ(run_weft("plan " + model + " --repair " + bad_path).code, 2);
  hostile = nlohmann::json::parse(seq.out);
  hostile["outputs_in_arena"] = true;
  ASSERT_TRUE(core::write_file_atomic(bad_path, hostile.dump()));
  refused = weft::test::run_cli("plan " + model + " --repair " + bad_path, weft::test::StderrMode::Merge);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.out.find("--outputs"), std::string::npos) << refused.out;
  EXPECT_EQ(run_weft("plan " + model + " --alignment 9223372036854775807").code, 1);
  EXPECT_EQ(run_weft("plan " + model + " --repair " + plan_path + " --planner exact").code, 1);
  for (const std::string& p : {plan_path, schedule_path, repaired_path, bad_path}) std::remove(p.c_str());
}
