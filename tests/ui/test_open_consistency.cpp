// One way to open a model (core::open_model) under the three front ends: the same files opened by
// `weft`, the studio and Python (plain, re-batched and split, merged, with dims bound, with a
// schedule file, with an unknown device preset) hold the same model and make the same schedule;
// an unknown preset is refused by all three, naming it (the studio once fell back to the default).
#include <QCheckBox>
#include <QComboBox>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QProcess>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "ui_test_support.h"
#include "weft/ui/load_controller.h"
#include "weft/ui/main_window.h"
#include "weft/ui/preferences.h"
#include "weft/ui/strategy_panel.h"

using nlohmann::json;
using weft::ui::MainWindow;

namespace {

const std::string kModels = std::string(WEFT_TEST_DATA_DIR) + "/models/";

/// What a saved schedule says of the model it was made on and of itself.
struct Saved {
  json streams, events, merges, split, sha;
};

Saved read_saved(const std::string& path) {
  std::ifstream in(path);
  const json j = json::parse(in, nullptr, false);
  if (!j.is_object()) return {json("unreadable " + path), {}, {}, {}, {}};
  return {j.value("streams", json()), j.value("events", json()), j.value("merges", json()), j.value("split", json()),
          j.contains("model") ? j["model"].value("sha256", json()) : json()};
}

bool same(const Saved& a, const Saved& b) {
  return a.streams == b.streams && a.events == b.events && a.merges == b.merges && a.split == b.split && a.sha == b.sha;
}

/// One case: the CLI's options, the studio's settings and Python's calls for the same opening.
struct Case {
  std::string name, model, cli;                         ///< weft schedule MODEL <cli> -o FILE
  std::map<std::string, std::int64_t> dims;             ///< the studio's dim bindings
  std::int64_t batch = 0;
  int split = -1;
  bool merge = false;
  std::string strategy = "cp-list";
  std::string python;                                   ///< an expression giving the schedule, `m` the loaded model
  std::string python_load;                              ///< weft.load keywords
};

/// Runs a Python snippet on the module in this build; its stdout, or "" with the error in `error`.
std::string run_python(const std::string& code, QString* error) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("PYTHONPATH", WEFT_PYTHON_DIR);
  p.setProcessEnvironment(env);
  p.start(WEFT_PYTHON_EXECUTABLE, {"-c", QString::fromStdString(code)});
  if (!p.waitForFinished(120000) || p.exitCode() != 0) {
    *error = QString::fromUtf8(p.readAllStandardError());
    return {};
  }
  return p.readAllStandardOutput().toStdString();
}

bool wait_load(QSignalSpy& spy, int count) { return weft::test::wait_until([&] { return spy.count() >= count; }, 120000); }

}  // namespace

class TestOpenConsistency : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QSettings().setValue("device", "h100-sxm"); }
  void cleanupTestCase() { QSettings().setValue("device", ""); }
  void sameModelSameScheduleEverywhere();
  void scheduleFileOpensAlikeEverywhere();
  void unknownPresetIsRefusedEverywhere();
};

void TestOpenConsistency::sameModelSameScheduleEverywhere() {
  QTemporaryDir dir;
  const std::vector<Case> cases = {
      {"plain", "googlenet", "", {}, 0, -1, false, "cp-list", "m.schedule('cp-list')", ""},
      {"dims", "inception_v3", "--dim batch=2", {{"batch", 2}}, 0, -1, false, "cp-list", "m.schedule('cp-list')", "dims={'batch': 2}"},
      {"split", "resnet50", "--batch 8 --split 2", {}, 8, 2, false, "split-overlap", "m.split(2).schedule('split-overlap')", "batch=8"},
      {"merged", "grouped_mlp", "--dim batch=4 --merge", {{"batch", 4}}, 0, -1, true, "cp-list", "m.merge().schedule('cp-list')",
       "dims={'batch': 4}"},
  };
  for (const Case& c : cases) {
    const std::string model = kModels + c.model + ".onnx";
    const std::string cli_file = dir.filePath(QString::fromStdString(c.name + ".cli.json")).toStdString();
    const auto r = weft::test::run_cli("schedule " + model + " " + c.cli + " --strategy " + c.strategy + " -o " + cli_file,
                                       weft::test::StderrMode::Separate);
    QVERIFY2(r.code == 0, (c.name + ": " + r.err).c_str());

    // The studio, opened with the same settings (advice not followed: the strategy is pinned).
    MainWindow w;
    w.loads()->pinOpeningConfiguration();
    w.loads()->setAskForDims(false);
    w.loads()->setDimBindings(c.dims);
    w.loads()->setBatchSplit(c.batch, c.split);
    w.strategyPanel()->strategyBox()->setCurrentText(QString::fromStdString(c.strategy));
    w.strategyPanel()->mergeBox()->setChecked(c.merge);
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openModel(QString::fromStdString(model));
    QVERIFY2(wait_load(loaded, 1), c.name.c_str());
    QVERIFY2(loaded.last().at(0).toBool(), qPrintable(loaded.last().at(1).toString()));
    const std::string studio_file = dir.filePath(QString::fromStdString(c.name + ".studio.json")).toStdString();
    QVERIFY(w.exportSchedule(QString::fromStdString(studio_file)));
    const Saved cli = read_saved(cli_file), studio = read_saved(studio_file);
    QVERIFY2(same(cli, studio), (c.name + ": the CLI's and the studio's schedules differ\n" + cli.streams.dump() + "\n" +
                                  studio.streams.dump() + "\n" + cli.split.dump() + " " + studio.split.dump())
                                     .c_str());

    // Python, as weft.load and the model's own calls open it.
    const std::string py_file = dir.filePath(QString::fromStdString(c.name + ".py.json")).toStdString();
    QString error;
    run_python("import weft\nm = weft.load('" + model + "'" + (c.python_load.empty() ? "" : ", " + c.python_load) + ")\n" + c.python +
                   ".save('" + py_file + "')\n",
               &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY2(same(cli, read_saved(py_file)), (c.name + ": the CLI's and Python's schedules differ").c_str());
  }
}

void TestOpenConsistency::scheduleFileOpensAlikeEverywhere() {
  // A split schedule of a static-batch export (resnet50 at batch 8 in two copies), opened on the
  // model as exported: each front end re-batches and splits it as the file records.
  QTemporaryDir dir;
  const std::string model = kModels + "resnet50.onnx";
  const std::string file = dir.filePath("split.json").toStdString();
  QCOMPARE(weft::test::run_cli("schedule " + model + " --batch 8 --split 2 --strategy split-overlap -o " + file).code, 0);
  const Saved saved = read_saved(file);
  const std::size_t streams = saved.streams.size();

  const auto v = weft::test::run_cli("validate " + model + " " + file, weft::test::StderrMode::Separate);
  QVERIFY2(v.code == 0, v.err.c_str());
  QVERIFY2(weft::test::contains(v.out, "valid: " + std::to_string(streams) + " streams"), v.out.c_str());

  MainWindow w;
  w.loads()->pinOpeningConfiguration();
  QSignalSpy loaded(&w, &MainWindow::loadFinished);
  w.openSchedule(QString::fromStdString(file), QString::fromStdString(model));
  QVERIFY(wait_load(loaded, 1));
  QVERIFY2(loaded.last().at(0).toBool(), qPrintable(loaded.last().at(1).toString()));
  const std::string studio_file = dir.filePath("studio.json").toStdString();
  QVERIFY(w.exportSchedule(QString::fromStdString(studio_file)));
  QVERIFY2(same(saved, read_saved(studio_file)), "the studio opened the schedule otherwise");

  QString error;
  const std::string py_file = dir.filePath("py.json").toStdString();
  run_python("import weft\ns = weft.load('" + model + "').open_schedule('" + file + "')\ns.save('" + py_file + "')\n", &error);
  QVERIFY2(error.isEmpty(), qPrintable(error));
  QVERIFY2(same(saved, read_saved(py_file)), "Python opened the schedule otherwise");
}

void TestOpenConsistency::unknownPresetIsRefusedEverywhere() {
  const std::string model = kModels + "googlenet.onnx";
  const auto r = weft::test::run_cli("analyze " + model + " --device no-such-gpu", weft::test::StderrMode::Separate);
  QCOMPARE(r.code, 1);
  QVERIFY2(weft::test::contains(r.err, "no-such-gpu"), r.err.c_str());

  MainWindow w;
  w.loads()->pinOpeningConfiguration();
  w.preferences()->setDevicePreset("no-such-gpu");
  QSignalSpy loaded(&w, &MainWindow::loadFinished);
  w.openModel(QString::fromStdString(model));
  QVERIFY(wait_load(loaded, 1));
  QVERIFY2(!loaded.last().at(0).toBool(), "the studio opened the model on some other device");
  QVERIFY2(loaded.last().at(1).toString().contains("no-such-gpu"), qPrintable(loaded.last().at(1).toString()));
  w.preferences()->setDevicePreset("h100-sxm");

  QString error;
  const std::string out = run_python("import weft\ntry:\n    weft.load('" + model + "', device='no-such-gpu')\n    print('opened')\n"
                                     "except weft.Error as e:\n    print('refused:', e)\n",
                                     &error);
  QVERIFY2(error.isEmpty(), qPrintable(error));
  QVERIFY2(out.rfind("refused:", 0) == 0 && out.find("no-such-gpu") != std::string::npos, out.c_str());
}

QTEST_MAIN(TestOpenConsistency)
#include "test_open_consistency.moc"
