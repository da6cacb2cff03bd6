// One engine under the CLI and the studio: for every model in tests/data, every strategy and both
// launch modes, `weft schedule --compare`, `weft simulate`, `weft plan` (JSON) and the studio (its
// document, summary panel and memory view) give the same predicted makespan, speedups over the
// graph and the eager baseline, arenas, price of concurrency and both lower bounds. Pins the bug
// where `schedule --compare --graph` predicted eager launches while `simulate --graph` did not.
#include <QTest>
#include <filesystem>
#include <future>
#include <map>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "ui_test_support.h"
#include "weft/core/onnx/dim_binding.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/ui/byte_format.h"
#include "weft/ui/memory_view.h"
#include "weft/ui/summary_panel.h"

using nlohmann::json;

namespace {

json cli_json(const std::string& args) {
  const auto r = weft::test::run_cli(args, weft::test::StderrMode::Discard);
  if (r.code != 0) return json{{"error", r.code}, {"args", args}};
  return json::parse(r.out, nullptr, false);
}

std::vector<std::string> models() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(WEFT_TEST_DATA_DIR) + "/models"))
    if (e.path().extension() == ".onnx") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// The summary panel's row `key` shows `value` (its rich-text table: key, then the bold figure).
bool summary_shows(const weft::ui::SummaryPanel& panel, QString key, const QString& value) {
  return panel.text().contains(key.replace(' ', "&nbsp;") + "</td><td align=right>&nbsp;<b>" + value + "</b>");
}

QString times(double x) { return QString("%1×").arg(x, 0, 'f', 2); }

}  // namespace

class TestStudyConsistency : public QObject {
  Q_OBJECT
 private slots:
  void cliAndStudioAgree();
  void unboundPlansNothingAnywhere();
};

void TestStudyConsistency::cliAndStudioAgree() {
  int compared = 0;
  for (const std::string& path : models()) {
    auto graph = weft::core::import_onnx(path);
    QVERIFY2(graph, path.c_str());
    // Symbolic dimensions bound to 1 on both sides (unbound, tensor sizes are unknown: the study
    // plans no memory and `weft plan` refuses).
    std::string model = path;
    if (const auto unbound = weft::core::unbound_dims(*graph); !unbound.empty()) {
      weft::core::ImportOptions bind;
      for (const auto& d : unbound) {
        bind.dims[d.key()] = 1;
        model += " --dim " + d.key() + "=1";
      }
      graph = weft::core::import_onnx(path, bind);
      QVERIFY2(graph, path.c_str());
    }
    if (graph->node_count() > weft::ui::kLiveStudyNodes) continue;  // past the studio's live size: nothing to compare
    auto loaded = weft::test::make_loaded(std::move(*graph), {});
    weft::ui::StudioDocument doc;
    // The panels that show the figures, as in the window (the memory view adapts the study when asked).
    weft::ui::SummaryPanel summary(&doc);
    weft::ui::MemoryView memory(&doc);
    doc.setModel(std::move(loaded));
    for (const bool cuda_graph : {false, true}) {
      // search is deterministic for a seed when only its candidate count stops it.
      const std::string mode = std::string(cuda_graph ? " --graph" : "") + " --search-evals 150";
      // The CLI runs in parallel (two cores): the compare table, then simulate and plan per strategy.
      const json table = cli_json("schedule " + model + " --compare --json" + mode);
      QVERIFY2(table.contains("strategies"), (path + mode + ": " + table.dump()).c_str());
      QCOMPARE(table["mode"].get<std::string>(), std::string(cuda_graph ? "graph" : "eager"));
      std::map<std::string, std::future<json>> simulated, planned;
      for (const json& row : table["strategies"]) {
        const std::string s = row["strategy"].get<std::string>();
        simulated[s] = std::async(std::launch::async, cli_json, "simulate " + model + " --strategy " + s + " --json" + mode);
        planned[s] = std::async(std::launch::async, cli_json, "plan " + model + " --strategy " + s + " --json" + mode);
      }
      for (const json& row : table["strategies"]) {
        const std::string s = row["strategy"].get<std::string>();
        const std::string where = path + " " + s + mode;
        const json sim = simulated[s].get();
        const json plan = planned[s].get();
        QVERIFY2(sim.contains("makespan_us"), (where + ": " + sim.dump()).c_str());
        QVERIFY2(plan.contains("arena_bytes"), (where + ": " + plan.dump()).c_str());
        // The compare table predicts in the same launch mode as simulate (the reported bug).
        QCOMPARE(row["predicted us"].get<double>(), sim["makespan_us"].get<double>());
        QCOMPARE(row["vs graph"].get<double>(), sim["speedup_vs_graph"].get<double>());
        QCOMPARE(row["vs eager"].get<double>(), sim["speedup_vs_eager"].get<double>());
        QCOMPARE(row["arena bytes"].get<std::int64_t>(), plan["arena_bytes"].get<std::int64_t>());
        QCOMPARE(row["price"].get<double>(), plan["price_of_concurrency"].get<double>());
        QCOMPARE(sim["arena_bytes"].get<std::int64_t>(), plan["arena_bytes"].get<std::int64_t>());
        QCOMPARE(sim["sequential_arena_bytes"].get<std::int64_t>(), plan["sequential_arena_bytes"].get<std::int64_t>());
        QCOMPARE(sim["price_of_concurrency"].get<double>(), plan["price_of_concurrency"].get<double>());

        // The studio: the same strategy applied in the document (its live figures).
        weft::core::StrategyOptions options;
        options.cuda_graph = cuda_graph;
        options.search_evaluations = 150;
        options.search_budget_ms = 1e12;
        QVERIFY2(doc.applyStrategy(QString::fromStdString(s), options), qPrintable(doc.lastRefusal()));
        // The figures come from the study the document runs in its worker after the edit.
        doc.waitForStudy();
        QVERIFY(!doc.studyPending());
        const auto& f = doc.figures();
        QVERIFY(!f.stale);
        QCOMPARE(f.predicted_us, sim["makespan_us"].get<double>());
        QCOMPARE(f.predicted_sequential_us,
                 sim[cuda_graph ? "sequential_graph_us" : "sequential_eager_us"].get<double>());
        QCOMPARE(f.arena_bytes, plan["arena_bytes"].get<std::int64_t>());
        QCOMPARE(f.sequential_arena_bytes, plan["sequential_arena_bytes"].get<std::int64_t>());
        QCOMPARE(doc.predictedRuns().at(2).makespan_us(), sim["sequential_graph_us"].get<double>());
        QCOMPARE(doc.predictedRuns().at(1).makespan_us(), sim["sequential_eager_us"].get<double>());
        // The studio's ideal figures, speedups and price are core's figures, equal to the CLI's...
        QCOMPARE(f.ideal_us, row["ideal makespan us"].get<double>());
        QCOMPARE(f.speedup, row["speedup"].get<double>());
        const double vs_graph = sim["speedup_vs_graph"].get<double>();
        const double vs_eager = sim["speedup_vs_eager"].get<double>();
        const double price = plan["price_of_concurrency"].get<double>();
        QCOMPARE(f.speedup_vs_graph, vs_graph);
        QCOMPARE(f.speedup_vs_eager, vs_eager);
        QCOMPARE(f.price_of_concurrency, price);
        // ...and the summary shows them.
        QVERIFY2(summary_shows(summary, "vs seq. graph", times(vs_graph)), qPrintable(where.c_str() + summary.text()));
        QVERIFY2(summary_shows(summary, "vs seq. eager", times(vs_eager)), qPrintable(where.c_str() + summary.text()));
        QVERIFY2(summary_shows(summary, "price of concurrency", times(price)), qPrintable(where.c_str() + summary.text()));
        // The memory view: arenas, price and both lower bounds, as `weft plan` prints them.
        const weft::ui::MemoryModel& m = memory.model();
        QVERIFY2(m.computed, m.note.c_str());
        const std::int64_t concurrent_bound = plan["lower_bound_bytes"].get<std::int64_t>();
        const std::int64_t linear_bound = plan["linear_lower_bound_bytes"].get<std::int64_t>();
        QCOMPARE(m.arena_bytes, plan["arena_bytes"].get<std::int64_t>());
        QCOMPARE(m.sequential_arena_bytes, plan["sequential_arena_bytes"].get<std::int64_t>());
        QCOMPARE(m.price_of_concurrency, price);
        QCOMPARE(m.concurrent_bound_bytes, concurrent_bound);
        QCOMPARE(m.linear_bound_bytes, linear_bound);
        const QString shown = memory.figuresText();
        QVERIFY2(shown.contains("price of concurrency " + times(price)), qPrintable(shown));
        QVERIFY2(shown.contains("concurrent bound " + weft::ui::format_bytes_fine(concurrent_bound)), qPrintable(shown));
        QVERIFY2(shown.contains("sequential bound " + weft::ui::format_bytes_fine(linear_bound)), qPrintable(shown));
        ++compared;
      }
    }
  }
  qInfo("%d (model, strategy, launch mode) triples agree across schedule --compare, simulate, plan and the studio's "
        "document, summary and memory view", compared);
  QVERIFY(compared >= 12 * 2);
}

// A batch left symbolic: tensor sizes are unknown, so neither front end plans memory (an arena
// of zero bytes was shown before): `weft plan` refuses naming the dimension, the compare table and
// simulate leave the arena out, the studio's document has none and its summary says why.
void TestStudyConsistency::unboundPlansNothingAnywhere() {
  const std::string path = std::string(WEFT_TEST_DATA_DIR) + "/models/transformer4h.onnx";
  const auto plan = weft::test::run_cli("plan " + path + " --strategy chains", weft::test::StderrMode::Separate);
  QCOMPARE(plan.code, 2);
  QVERIFY2(plan.err.find("the memory plan needs every tensor's size; unresolved: x: dim 0 'batch'") != std::string::npos,
           plan.err.c_str());
  const json table = cli_json("schedule " + path + " --compare --json");
  QVERIFY2(table.contains("strategies"), table.dump().c_str());
  for (const json& row : table["strategies"]) {
    QVERIFY2(row["arena bytes"].is_null(), row.dump().c_str());
    QVERIFY2(row["price"].is_null(), row.dump().c_str());
    QVERIFY(row["predicted us"].get<double>() > 0);  // the rest of the study stands
  }
  const json sim = cli_json("simulate " + path + " --strategy chains --json");
  QVERIFY2(sim.contains("makespan_us"), sim.dump().c_str());
  QVERIFY(!sim.contains("arena_bytes"));

  auto graph = weft::core::import_onnx(path);
  QVERIFY(graph);
  weft::ui::StudioDocument doc;
  weft::ui::SummaryPanel summary(&doc);
  doc.setModel(weft::test::make_loaded(std::move(*graph), {}));
  weft::core::StrategyOptions options;
  QVERIFY2(doc.applyStrategy("chains", options), qPrintable(doc.lastRefusal()));
  doc.waitForStudy();
  QVERIFY(doc.study());
  QVERIFY(!doc.study()->memory);
  QVERIFY(doc.figures().arena_bytes < 0);
  QCOMPARE(doc.figures().predicted_us, sim["makespan_us"].get<double>());
  QVERIFY2(summary_shows(summary, "arena", "unknown (unbound)"), qPrintable(summary.text()));
}

QTEST_MAIN(TestStudyConsistency)
#include "test_study_consistency.moc"
