// `--memory-budget` on schedule, plan, simulate and run (fits, says what it cost, refuses below the
// sequential arena with exit 2) and `weft frontier` (table, CSV, SVG, JSON; a monotone front).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_runner.h"
#include "weft/core/base/file_io.h"

using namespace weft;

namespace {

const std::string kTransformer = test::model_path("transformer4h") + " --dim batch=8";

nlohmann::json json_of(const test::CliResult& r) {
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j;
}

std::int64_t sequential_arena() {
  const auto r = test::run_cli("plan " + kTransformer + " --json", test::StderrMode::Discard);
  EXPECT_EQ(r.code, 0) << r.out;
  return json_of(r).at("arena_bytes").get<std::int64_t>();
}

}  // namespace

// A budgeted schedule is written, validates, and `weft plan` of the file fits the budget; the
// JSON says what the budget cost in predicted time.
TEST(CliBudget, ScheduleFitsAndRoundTrips) {
  const std::string out = test::temp_path("weft_budget_schedule.json");
  const auto r = test::run_cli("schedule " + kTransformer + " --strategy level-rr --graph --memory-budget 2.25MiB --json -o " + out,
                               test::StderrMode::Discard);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = json_of(r);
  const auto& b = j.at("memory_budget");
  EXPECT_EQ(b.at("budget_bytes").get<std::int64_t>(), 2359296);
  EXPECT_LE(b.at("arena_bytes").get<std::int64_t>(), 2359296);
  EXPECT_LE(j.at("arena_bytes").get<std::int64_t>(), 2359296);
  EXPECT_GT(b.at("original_arena_bytes").get<std::int64_t>(), 2359296);
  EXPECT_GE(b.at("fitted_us").get<double>(), b.at("original_us").get<double>());
  EXPECT_NEAR(b.at("fitted_us").get<double>(), j.at("predicted_us").get<double>(), 1e-6);
  EXPECT_NE(b.at("summary").get<std::string>().find("predicted"), std::string::npos);

  const auto v = test::run_cli("validate " + kTransformer + " " + out);
  EXPECT_EQ(v.code, 0) << v.out;
  const auto p = test::run_cli("plan " + kTransformer + " --schedule " + out + " --json", test::StderrMode::Discard);
  ASSERT_EQ(p.code, 0) << p.out;
  EXPECT_LE(json_of(p).at("arena_bytes").get<std::int64_t>(), 2359296);
  std::filesystem::remove(out);
}

// The text report of plan and simulate carries the budget line; simulate predicts what the fit said.
TEST(CliBudget, PlanAndSimulateReportTheCost) {
  const auto p = test::run_cli("plan " + kTransformer + " --strategy level-rr --graph --memory-budget 3MiB");
  ASSERT_EQ(p.code, 0) << p.out;
  EXPECT_NE(p.out.find("memory budget: arena"), std::string::npos) << p.out;
  const auto s = test::run_cli("simulate " + kTransformer + " --strategy level-rr --graph --memory-budget 3MiB --json",
                               test::StderrMode::Discard);
  ASSERT_EQ(s.code, 0) << s.out;
  const auto j = json_of(s);
  EXPECT_LE(j.at("arena_bytes").get<std::int64_t>(), 3 * 1048576);
  EXPECT_NEAR(j.at("memory_budget").at("fitted_us").get<double>(), j.at("makespan_us").get<double>(), 1e-6);
}

// The sequential arena as the budget is accepted; a byte less is refused with exit 2 and the
// reason; a malformed size is a usage error.
TEST(CliBudget, RefusesBelowTheSequentialArena) {
  const std::int64_t seq = sequential_arena();
  const auto ok = test::run_cli("schedule " + kTransformer + " --strategy cp-list --graph --memory-budget " + std::to_string(seq) +
                                " --json", test::StderrMode::Discard);
  ASSERT_EQ(ok.code, 0) << ok.out;
  EXPECT_LE(json_of(ok).at("arena_bytes").get<std::int64_t>(), seq);
  const auto refused = test::run_cli("plan " + kTransformer + " --strategy cp-list --memory-budget " + std::to_string(seq - 1),
                                     test::StderrMode::Separate);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("sequential order"), std::string::npos) << refused.err;
  const auto bad = test::run_cli("simulate " + kTransformer + " --memory-budget 4XB", test::StderrMode::Separate);
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("memory-budget"), std::string::npos) << bad.err;
  const auto compare = test::run_cli("schedule " + kTransformer + " --compare --memory-budget 4MiB", test::StderrMode::Separate);
  EXPECT_EQ(compare.code, 1);
}

// Budgets need sizes: with the batch left unbound every tensor would plan as 0 bytes, so a memory
// budget, the front and every memory plan (a repaired one too, before its file is read) refuse
// (exit 2) and name the dimension.
TEST(CliBudget, RefusesUnresolvedDimensions) {
  const std::string unbound = test::model_path("transformer4h");
  for (const std::string& command : {"schedule " + unbound + " --strategy chains --memory-budget 4MiB",
                                     "plan " + unbound + " --strategy chains --memory-budget 4MiB", "frontier " + unbound,
                                     "plan " + unbound, "plan " + unbound + " --strategy chains --repair no_such_plan.json"}) {
    const auto r = test::run_cli(command, test::StderrMode::Separate);
    EXPECT_EQ(r.code, 2) << command << "\n" << r.err;
    EXPECT_NE(r.err.find("unresolved: x: dim 0 'batch'"), std::string::npos) << command << "\n" << r.err;
  }
  EXPECT_EQ(test::run_cli("frontier " + kTransformer + " --caps 1,2", test::StderrMode::Discard).code, 0);
}

// `weft run --backend cpu` runs the budgeted schedule: outputs agree and the run's arena fits.
TEST(CliBudget, RunOnCpuUnderBudget) {
  const auto r = test::run_cli("run " + test::model_path("grouped_mlp") +
                                   " --dim batch=64 --backend cpu --strategy level-rr --granularity 0 --iterations 1 "
                                   "--warmup 0 --memory-budget 0.3MiB --json",
                               test::StderrMode::Discard);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = json_of(r);
  EXPECT_LE(j.at("memory_budget").at("arena_bytes").get<std::int64_t>(), 314573);
  EXPECT_TRUE(j.at("bit_identical").get<bool>()) << r.out;
  EXPECT_LE(j.at("arena_bytes").get<std::int64_t>(), 314573);
}

// `weft frontier`: the JSON front is monotone (more memory never predicts slower), the CSV has a
// row per point, the SVG and the PNG chart are written.
TEST(CliFrontier, TableCsvSvgJson) {
  const auto j = json_of(test::run_cli("frontier " + kTransformer + " --graph --json", test::StderrMode::Discard));
  const auto& points = j.at("points");
  const auto& front = j.at("front");
  ASSERT_GE(front.size(), 2u);
  for (std::size_t k = 1; k < front.size(); ++k) {
    const auto& a = points.at(front[k - 1].get<std::size_t>());
    const auto& b = points.at(front[k].get<std::size_t>());
    EXPECT_LT(a.at("arena_bytes").get<std::int64_t>(), b.at("arena_bytes").get<std::int64_t>());
    EXPECT_GT(a.at("predicted_us").get<double>(), b.at("predicted_us").get<double>());
  }
  const auto csv = test::run_cli("frontier " + kTransformer + " --graph --csv -", test::StderrMode::Discard);
  ASSERT_EQ(csv.code, 0);
  std::size_t rows = 0;
  for (char c : csv.out) rows += c == '\n';
  EXPECT_EQ(rows, points.size() + 1);

  const std::string svg = test::temp_path("weft_frontier.svg");
  const auto t = test::run_cli("frontier " + kTransformer + " --graph --svg " + svg, test::StderrMode::Discard);
  ASSERT_EQ(t.code, 0) << t.out;
  EXPECT_NE(t.out.find("on the front"), std::string::npos) << t.out;
  auto text = core::read_file(svg);
  ASSERT_TRUE(text);
  EXPECT_EQ(text->rfind("<svg", 0), 0u);
  std::filesystem::remove(svg);

  // --png: a PNG chart drawn with cairo, at the default size (900 x 540 in IHDR).
  const std::string png_path = test::temp_path("weft_frontier.png");
  const auto png = test::run_cli("frontier " + kTransformer + " --graph --png " + png_path, test::StderrMode::Discard);
  ASSERT_EQ(png.code, 0) << png.out;
  EXPECT_NE(png.out.find("chart written to"), std::string::npos) << png.out;
  auto image = core::read_file(png_path);
  ASSERT_TRUE(image);
  ASSERT_GT(image->size(), 1000u);
  EXPECT_EQ(image->substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(image->substr(12, 4), "IHDR");
  const auto be32 = [&](std::size_t at) {
    unsigned v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>((*image)[at + i]);
    return v;
  };
  EXPECT_EQ(be32(16), 900u);
  EXPECT_EQ(be32(20), 540u);
  std::filesystem::remove(png_path);
}

// --merge: the front of the merged model (its node count in the JSON), as the studio's frontier
// view shows it for a merged model; the merged transformer has fewer operators.
TEST(CliFrontier, MergedModel) {
  const std::string m = test::model_path("transformer4h") + " --dim batch=1 --graph --json";
  const auto plain = json_of(test::run_cli("frontier " + m, test::StderrMode::Discard));
  const auto merged = json_of(test::run_cli("frontier " + m + " --merge", test::StderrMode::Discard));
  ASSERT_TRUE(merged.contains("merge"));
  EXPECT_FALSE(plain.contains("merge"));
  EXPECT_LT(merged["merge"]["nodes_after"].get<int>(), merged["merge"]["nodes_before"].get<int>());
  // One launch per merged group: the merged model's sequential run is shorter.
  EXPECT_LT(merged["sequential_us"].get<double>(), plain["sequential_us"].get<double>());
  ASSERT_FALSE(merged["front"].empty());
}
