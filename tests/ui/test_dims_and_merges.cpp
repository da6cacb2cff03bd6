// Symbolic dims and horizontal merges in the studio, through real widgets: a model that loads with
// its batch unbound offers the dim dialog (prefilled), whose OK re-imports it bound (the CLI's
// --dim path: the same graph as import_onnx with those dims) and a project keeps the bindings; the
// merge box re-opens grouped_mlp as the merged model core::merge_model makes (`--merge`), the
// summary shows its launches before and after (core::merge_gain) and the lanes outline merged
// launches; the summary's advice wraps to the dock at the default window size.
#include <QApplication>
#include <QChart>
#include <QLineEdit>
#include <QLineSeries>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QUndoStack>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <set>

#include "ui_test_support.h"
#include "weft/core/study/open_model.h"
#include "weft/core/onnx/dim_binding.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/study/advice.h"
#include "weft/core/study/merge_study.h"
#include "weft/core/study/split_study.h"
#include "weft/core/base/file_io.h"
#include "weft/core/graph/fused_node.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/strategy/registry.h"
#include "weft/ui/dim_dialog.h"
#include "weft/ui/lanes_view.h"
#include "weft/ui/load_controller.h"
#include "weft/ui/main_window.h"
#include "weft/ui/memory_view.h"
#include "weft/ui/stream_colors.h"
#include "weft/ui/strategy_panel.h"
#include "weft/ui/load_job.h"
#include "weft/ui/summary_panel.h"
#include "weft/ui/sweep_view.h"

using weft::ui::MainWindow;

namespace {
const QString kInception = QStringLiteral(WEFT_TEST_DATA_DIR "/models/inception_v3.onnx");
const QString kGroupedMlp = QStringLiteral(WEFT_TEST_DATA_DIR "/models/grouped_mlp.onnx");

// Schedule JSON `text` naming its model by `path` instead (the first "path" key: the model's).
std::string with_model_path(std::string text, const std::string& path) {
  const std::string key = "\"path\": \"";
  const auto from = text.find(key) + key.size();
  text.replace(from, text.find('"', from) - from, path);
  return text;
}
const QString kGooglenet = QStringLiteral(WEFT_TEST_DATA_DIR "/models/googlenet.onnx");
const QString kResnet50 = QStringLiteral(WEFT_TEST_DATA_DIR "/models/resnet50.onnx");

bool wait_loads(QSignalSpy& spy, int count) {
  return weft::test::wait_until([&] { return spy.count() >= count; }, 120000) && spy.last().at(0).toBool();
}

/// Sum of the graph's input elements (all dims known), or -1 when one is unknown.
std::int64_t input_elements(const weft::core::Graph& g) {
  std::int64_t total = 0;
  for (weft::core::TensorId t : g.inputs()) {
    std::int64_t n = 1;
    for (const auto& d : g.tensor(t).dims) {
      if (!d.known()) return -1;
      n *= d.value;
    }
    total += n;
  }
  return total;
}
}  // namespace

class TestDimsAndMerges : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("weft-tests");
    QCoreApplication::setApplicationName("test_dims_and_merges");
    QSettings().clear();
  }
  void dimBindingParsesAndSuggests();
  void dimDialogBindsAndReimports();
  void mergeBoxOpensMergedModel();
  void fuseBoxOpensFusedModel();
  void mergeAdviceAppliesByReopening();
  void opensScheduleFiles();
  void adviceWrapsAtDefaultSize();
  void sweepViewDrawsCoreSweep();
};

void TestDimsAndMerges::dimBindingParsesAndSuggests() {
  auto ok = weft::core::parse_dim_binding("batch=8");
  QVERIFY(ok);
  QCOMPARE(ok->first, std::string("batch"));
  QCOMPARE(ok->second, std::int64_t{8});
  auto axis = weft::core::parse_dim_binding("x:0=2");
  QVERIFY(axis);
  QCOMPARE(axis->first, std::string("x:0"));
  for (const char* bad : {"batch", "=3", "batch=0", "batch=-1", "batch=2x", "batch="}) {
    auto refused = weft::core::parse_dim_binding(bad);
    QVERIFY2(!refused, bad);
    // Core never returns Usage: the front ends map it for their --dim option.
    QCOMPARE(refused.error().kind, weft::core::ErrorKind::InvalidInput);
    QVERIFY2(refused.error().message.find("dim binding '" + std::string(bad) + "'") != std::string::npos,
             refused.error().message.c_str());
  }
  weft::core::UnboundDim batch{"x", 0, 4, "N"};
  weft::core::UnboundDim height{"x", 2, 4, "H"};
  weft::core::UnboundDim seq{"ids", 1, 2, "sequence"};
  weft::core::UnboundDim unnamed{"x", 3, 4, ""};
  QCOMPARE(weft::core::suggested_dim_value(batch), std::int64_t{1});
  QCOMPARE(weft::core::suggested_dim_value(height), std::int64_t{224});
  QCOMPARE(weft::core::suggested_dim_value(seq), std::int64_t{128});
  QCOMPARE(unnamed.key(), std::string("x:3"));
  QCOMPARE(batch.key(), std::string("N"));
}

void TestDimsAndMerges::dimDialogBindsAndReimports() {
  QTemporaryDir dir;
  const QString project = dir.filePath("inception.weft");
  {
    MainWindow w;
    w.show();
    QSignalSpy done(&w, &MainWindow::loadFinished);
    w.openModel(kInception);
    QVERIFY(wait_loads(done, 1));
    // Loaded with the batch unbound: the dialog offers it, prefilled with 1.
    const auto unbound = weft::core::unbound_dims(w.document()->graph());
    QCOMPARE(unbound.size(), std::size_t{1});
    QCOMPARE(unbound[0].key(), std::string("batch"));
    QCOMPARE(input_elements(w.document()->graph()), std::int64_t{-1});
    // Meanwhile the summary says its figures rest on nothing: the arena is "unknown (unbound)" (not "0
    // bytes") and the advice line cautions, naming the dimension.
    w.document()->waitForStudy();
    QVERIFY(weft::test::wait_until([&] { return !w.summaryPanel()->advice().isEmpty(); }));
    QVERIFY2(w.summaryPanel()->text().contains("unknown (unbound)"), qPrintable(w.summaryPanel()->text()));
    QVERIFY2(w.summaryPanel()->advice().contains("bind the symbolic dimension 'batch'"), qPrintable(w.summaryPanel()->advice()));
    // The memory view plans nothing rather than an empty arena, and says which dimension to bind.
    QVERIFY(weft::test::wait_until([&] { return w.memoryView()->shownModel().note.find("No memory plan") != std::string::npos; }));
    QVERIFY(!w.memoryView()->shownModel().computed);
    QVERIFY(w.memoryView()->shownModel().note.find("x: dim 0 'batch'") != std::string::npos);
    weft::ui::DimDialog* dialog = w.loads()->dimDialog();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QSpinBox* box = dialog->valueBox("batch");
    QVERIFY(box);
    QCOMPARE(box->value(), 1);
    // Type 2 into it and press the dialog's OK button.
    box->selectAll();
    QTest::keyClicks(box, "2");
    QCOMPARE(box->value(), 2);
    auto* buttons = dialog->findChild<QDialogButtonBox*>();
    QVERIFY(buttons);
    QTest::mouseClick(buttons->button(QDialogButtonBox::Ok), Qt::LeftButton);
    QVERIFY(wait_loads(done, 2));
    QVERIFY(weft::core::unbound_dims(w.document()->graph()).empty());
    QCOMPARE(w.document()->dimBindings(), (std::map<std::string, std::int64_t>{{"batch", 2}}));
    QVERIFY(!w.loads()->dimDialog() || !w.loads()->dimDialog()->isVisible());  // nothing left to ask
    // The CLI's import with --dim batch=2 gives the same graph.
    weft::core::ImportOptions options;
    options.dims = {{"batch", 2}};
    auto cli = weft::core::import_onnx(kInception.toStdString(), options);
    QVERIFY(cli);
    QCOMPARE(w.document()->graph().node_count(), cli->node_count());
    QCOMPARE(input_elements(w.document()->graph()), input_elements(*cli));
    QCOMPARE(input_elements(*cli), std::int64_t{2 * 3 * 299 * 299});
    // Bound, the study plans a real arena (unbound, every activation's size was unknown).
    w.document()->waitForStudy();
    QVERIFY(w.document()->figures().arena_bytes > 0);
    QVERIFY(weft::test::wait_until([&] { return !w.summaryPanel()->advice().isEmpty(); }));
    QVERIFY2(!w.summaryPanel()->text().contains("unknown (unbound)"), qPrintable(w.summaryPanel()->text()));
    QVERIFY2(!w.summaryPanel()->advice().contains("caution"), qPrintable(w.summaryPanel()->advice()));
    QVERIFY(weft::test::wait_until([&] { return w.memoryView()->shownModel().computed; }));
    QVERIFY(w.memoryView()->shownModel().arena_bytes > 0);
    QVERIFY(w.saveProject(project));
  }
  // The project keeps the bindings: it reopens bound, with no dialog.
  MainWindow w2;
  QSignalSpy done(&w2, &MainWindow::loadFinished);
  w2.openProject(project);
  QVERIFY(wait_loads(done, 1));
  QCOMPARE(w2.document()->dimBindings(), (std::map<std::string, std::int64_t>{{"batch", 2}}));
  QVERIFY(weft::core::unbound_dims(w2.document()->graph()).empty());
  QVERIFY(!w2.loads()->dimDialog());
  // Asked with nothing left to bind, the window says so instead of opening an empty dialog.
  QVERIFY(!w2.loads()->showDimDialog());
  QVERIFY(w2.lastMessage().contains("no symbolic dimensions"));
}

// The Fusion box re-opens the model fused as `weft layers --fuse` fuses it (ResNet-50: 49 Conv
// chains, 122 -> 57 operators); the graph labels fused nodes by their chain and the summary counts
// fused chains, not merge groups; unchecking re-opens it unfused.
void TestDimsAndMerges::fuseBoxOpensFusedModel() {
  MainWindow w;
  w.resize(1400, 900);
  w.show();
  QSignalSpy done(&w, &MainWindow::loadFinished);
  w.openModel(kResnet50);
  QVERIFY(wait_loads(done, 1));
  const std::size_t unfused = w.document()->graph().node_count();
  QCOMPARE(unfused, std::size_t{122});
  QCheckBox* fuse = w.strategyPanel()->fuseBox();
  QVERIFY(!fuse->isChecked());
  QTest::mouseClick(fuse, Qt::LeftButton, {}, QPoint(8, fuse->height() / 2));
  QVERIFY(fuse->isChecked());
  QVERIFY(wait_loads(done, 2));
  QCOMPARE(w.document()->graph().node_count(), std::size_t{57});
  QCOMPARE(weft::core::count_fused_nodes(w.document()->graph()), std::size_t{49});
  w.document()->waitForStudy();
  QVERIFY(weft::test::wait_until([&] { return w.summaryPanel()->mergeGain().has_value(); }));
  const QString text = w.summaryPanel()->text();
  QVERIFY2(text.contains("fused&nbsp;chains") && !text.contains("merge&nbsp;groups") && text.contains("vs&nbsp;unfused&nbsp;graph") &&
               text.contains("122 → 57"),
           qPrintable(text));
  QTest::mouseClick(fuse, Qt::LeftButton, {}, QPoint(8, fuse->height() / 2));
  QVERIFY(wait_loads(done, 3));
  QCOMPARE(w.document()->graph().node_count(), unfused);
  QVERIFY(!w.summaryPanel()->text().contains("fused&nbsp;chains"));
}

void TestDimsAndMerges::mergeBoxOpensMergedModel() {
  MainWindow w;
  w.resize(1400, 900);
  w.show();
  w.loads()->setDimBindings({{"batch", 1}});  // as weft-studio --dim batch=1
  QSignalSpy done(&w, &MainWindow::loadFinished);
  w.openModel(kGroupedMlp);
  QVERIFY(wait_loads(done, 1));
  QVERIFY(!w.loads()->dimDialog());
  QVERIFY(!w.document()->isMerged());
  // Opened as advised: the advice merges (48 -> 12 beats streams alone); merging is the user's
  // setting, so the status says where it is rather than turning it on.
  QVERIFY2(w.lastMessage().contains("the advice also merges equal operators (48 -> 12 launches): apply it in the summary, or tick Merging"),
           qPrintable(w.lastMessage()));
  const std::size_t unmerged_nodes = w.document()->graph().node_count();
  QCheckBox* merge = w.strategyPanel()->mergeBox();
  QVERIFY(!merge->isChecked());
  QTest::mouseClick(merge, Qt::LeftButton, {}, QPoint(8, merge->height() / 2));
  QVERIFY(merge->isChecked());
  QVERIFY(wait_loads(done, 2));
  QVERIFY(w.document()->isMerged());
  QVERIFY(merge->isChecked());
  // The CLI's --merge on the same import: the same merged model.
  weft::core::ImportOptions options;
  options.dims = {{"batch", 1}};
  auto graph = weft::core::import_onnx(kGroupedMlp.toStdString(), options);
  QVERIFY(graph);
  const auto device = *weft::core::open_device("");
  const auto costs = weft::core::estimate_costs(*graph, device);
  auto cli = weft::core::merge_model(*graph, costs, device);
  QVERIFY(cli);
  QCOMPARE(w.document()->graph().node_count(), cli->graph.node_count());
  QCOMPARE(w.document()->mergeState()->unmerged->node_count(), unmerged_nodes);
  QVERIFY(w.document()->graph().node_count() < unmerged_nodes);
  QCOMPARE(w.document()->mergeState()->groups, std::size_t{12});
  // The summary: groups, and launches before and after from core::merge_gain.
  w.document()->waitForStudy();
  QVERIFY(weft::test::wait_until([&] { return w.summaryPanel()->mergeGain().has_value(); }));
  const auto& gain = *w.summaryPanel()->mergeGain();
  QCOMPARE(gain.launches_before, std::size_t{48});
  QCOMPARE(gain.launches_after, std::size_t{12});
  QVERIFY(gain.speedup_vs_graph > 1.0);
  const QString text = w.summaryPanel()->text();
  QVERIFY2(text.contains("merge&nbsp;groups") && text.contains("launches") && text.contains("48 → 12"), qPrintable(text));
  // The lanes outline merged launches in the merge colour.
  w.showView("lanes");
  const QImage lanes = w.lanesView()->grab().toImage();
  const QRgb outline = weft::ui::merged_color().rgb();
  int outlined = 0;
  for (int y = 0; y < lanes.height(); ++y)
    for (int x = 0; x < lanes.width(); ++x) outlined += lanes.pixel(x, y) == outline ? 1 : 0;
  QVERIFY2(outlined > 100, qPrintable(QString::number(outlined)));
  // A project remembers the merge; unchecking re-opens the model unmerged.
  QTest::mouseClick(merge, Qt::LeftButton, {}, QPoint(8, merge->height() / 2));
  QVERIFY(wait_loads(done, 3));
  QVERIFY(!w.document()->isMerged());
  QCOMPARE(w.document()->graph().node_count(), unmerged_nodes);
  QVERIFY(!w.summaryPanel()->text().contains("merge&nbsp;groups"));
}

// Schedule files the CLI writes open in the studio: with no model open, the model the file names;
// onto the open model as one undo step; a merged schedule re-opens the model with its merges (the
// same merged model and streams as `weft ... --schedule FILE`); a broken one changes nothing and
// says why; a project saved on it keeps its merges; a dropped .json opens too.
void TestDimsAndMerges::opensScheduleFiles() {
  using namespace weft;
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  core::ImportOptions options;
  options.dims = {{"batch", 1}};
  auto graph = core::import_onnx(kGroupedMlp.toStdString(), options);
  QVERIFY(graph);
  const auto device = *core::open_device("");
  const auto costs = core::estimate_costs(*graph, device);
  auto chains = core::make_schedule("chains", *graph, costs, device);
  QVERIFY(chains);
  const QString plain_file = dir.filePath("chains.json");
  QVERIFY(core::save_schedule(plain_file.toStdString(), *graph, *chains, device.name));
  // Half the default layering's merges, so that the file's groups, not the default ones, must open.
  auto all_merges = core::merge_model(*graph, costs, device);
  QVERIFY(all_merges);
  std::vector<std::vector<core::NodeId>> half;
  for (const auto& members : all_merges->members)
    if (members.size() > 1 && half.size() < 6) half.push_back(members);
  auto merged = core::merge_model(*graph, costs, device, half);
  QVERIFY(merged);
  auto merged_schedule = core::make_schedule("level-rr", merged->graph, merged->costs, device);
  QVERIFY(merged_schedule);
  const QString merged_file = dir.filePath("merged.json");
  QVERIFY(core::save_schedule(merged_file.toStdString(), merged->graph, *merged_schedule, device.name));
  // A hand edit that deadlocks: the first two nodes of stream 0 swapped (the second reads the first).
  const std::string plain_text = *core::read_file(plain_file.toStdString());
  const std::string first = graph->key(chains->streams[0][0]), second = graph->key(chains->streams[0][1]);
  std::string broken = plain_text;
  const auto at = broken.find("\"" + first + "\",\n      \"" + second + "\"");
  QVERIFY(at != std::string::npos);
  broken.replace(at, first.size() + second.size() + 12, "\"" + second + "\",\n      \"" + first + "\"");
  const QString broken_file = dir.filePath("broken.json");
  QVERIFY(core::write_file_atomic(broken_file.toStdString(), broken));

  MainWindow w;
  w.resize(1400, 900);
  w.show();
  w.loads()->setDimBindings({{"batch", 1}});
  QSignalSpy done(&w, &MainWindow::loadFinished);
  // No model open: the schedule opens the model it was made for.
  w.openSchedule(plain_file);
  QVERIFY(wait_loads(done, 1));
  QCOMPARE(w.document()->modelPath(), QFileInfo(kGroupedMlp).absoluteFilePath());
  QVERIFY(!w.document()->isMerged());
  QCOMPARE(w.document()->schedule().streams, chains->streams);
  QCOMPARE(w.document()->schedule().events, chains->events);
  QCOMPARE(w.document()->schedule().strategy, std::string("chains"));
  QVERIFY2(w.lastMessage().contains("chains.json"), qPrintable(w.lastMessage()));

  // Onto the open model: one undo step over what was there.
  QVERIFY(w.document()->applyStrategy("sequential", {}));
  QCOMPARE(w.document()->schedule().stream_count(), std::size_t{1});
  const int steps = w.document()->undoStack()->count();
  w.openSchedule(plain_file);
  QCOMPARE(done.count(), 1);  // no reload
  QCOMPARE(w.document()->undoStack()->count(), steps + 1);
  QCOMPARE(w.document()->schedule().streams, chains->streams);
  w.document()->undoStack()->undo();
  QCOMPARE(w.document()->schedule().stream_count(), std::size_t{1});

  // A merged schedule re-opens the model with its merges: the CLI's merged model and streams.
  w.openSchedule(merged_file);
  QVERIFY(wait_loads(done, 2));
  QVERIFY(w.document()->isMerged());
  QCOMPARE(w.document()->graph().node_count(), merged->graph.node_count());
  QCOMPARE(w.document()->mergeState()->groups, std::size_t{6});
  QCOMPARE(w.document()->schedule().streams, merged_schedule->streams);
  QCOMPARE(w.document()->schedule().events, merged_schedule->events);
  QVERIFY(w.strategyPanel()->mergeBox()->isChecked());

  // A broken schedule changes nothing and says why (here through a reload: it is unmerged).
  const auto streams_before = w.document()->schedule().streams;
  w.openSchedule(broken_file);
  QVERIFY(weft::test::wait_until([&] { return done.count() >= 3; }, 120000));
  QVERIFY(!done.last().at(0).toBool());
  QVERIFY2(w.lastMessage().contains("broken.json") && w.lastMessage().contains("deadlock"), qPrintable(w.lastMessage()));
  QVERIFY(w.document()->isMerged());
  QCOMPARE(w.document()->schedule().streams, streams_before);
  // A file that is not schedule JSON, refused before any load.
  const QString junk = dir.filePath("junk.json");
  QVERIFY(core::write_file_atomic(junk.toStdString(), "{\"split\": 3"));
  w.openSchedule(junk);
  QCOMPARE(done.count(), 4);
  QVERIFY2(w.lastMessage().contains("malformed JSON"), qPrintable(w.lastMessage()));
  // With no model open, of the files the schedule may name, the one with the recorded hash opens:
  // sub/grouped_mlp.onnx beside the schedule is another model, ./grouped_mlp.onnx the right one.
  {
    QDir(dir.path()).mkpath("moved/sub");
    QVERIFY(QFile::copy(kGooglenet, dir.filePath("moved/sub/grouped_mlp.onnx")));
    QVERIFY(QFile::copy(kGroupedMlp, dir.filePath("moved/grouped_mlp.onnx")));
    const std::string moved = with_model_path(plain_text, "sub/grouped_mlp.onnx");
    const QString moved_file = dir.filePath("moved/chains.json");
    QVERIFY(core::write_file_atomic(moved_file.toStdString(), moved));
    MainWindow elsewhere;
    elsewhere.loads()->setDimBindings({{"batch", 1}});
    QSignalSpy found(&elsewhere, &MainWindow::loadFinished);
    elsewhere.openSchedule(moved_file);
    QVERIFY(wait_loads(found, 1));
    QCOMPARE(elsewhere.document()->modelPath(), dir.filePath("moved/grouped_mlp.onnx"));
    QCOMPARE(elsewhere.document()->schedule().streams, chains->streams);
  }
  // With no model open, a file naming something other than an .onnx model opens nothing.
  {
    MainWindow none;
    QSignalSpy refused(&none, &MainWindow::loadFinished);
    const std::string hostile = with_model_path(plain_text, "/etc/passwd");
    const QString hostile_file = dir.filePath("hostile.json");
    QVERIFY(core::write_file_atomic(hostile_file.toStdString(), hostile));
    none.openSchedule(hostile_file);
    QCOMPARE(refused.count(), 1);
    QVERIFY(!refused.last().at(0).toBool());
    QVERIFY(!none.isLoading());
    QVERIFY2(none.lastMessage().contains("not an .onnx model"), qPrintable(none.lastMessage()));
  }

  // A project saved on the opened merged schedule re-opens with its merges and streams.
  const QString project = dir.filePath("merged.weft");
  QVERIFY(w.saveProject(project));
  MainWindow again;
  QSignalSpy reopened(&again, &MainWindow::loadFinished);
  again.openProject(project);
  QVERIFY(wait_loads(reopened, 1));
  QVERIFY(again.document()->isMerged());
  QCOMPARE(again.document()->schedule().streams, merged_schedule->streams);
  QVERIFY2(!again.lastMessage().contains("refused"), qPrintable(again.lastMessage()));

  // Dropped on the window, a .json opens as a schedule: back to the unmerged chains.
  QVERIFY(weft::test::drop_files(w, {plain_file}));
  QVERIFY(wait_loads(done, 5));
  QVERIFY(!w.document()->isMerged());
  QCOMPARE(w.document()->schedule().streams, chains->streams);

  // A split schedule of a static-batch export opens its model re-batched and split as recorded
  // (weft schedule resnet50.onnx --batch 8 --split 2 ...).
  core::ImportOptions at8;
  at8.batch = 8;
  auto resnet = core::import_onnx(QStringLiteral(WEFT_TEST_DATA_DIR "/models/resnet50.onnx").toStdString(), at8);
  QVERIFY(resnet);
  core::SplitOptions two;
  two.k = 2;
  auto split = core::apply_split(*resnet, device, two);
  QVERIFY(split);
  auto overlap = core::make_schedule("split-overlap", split->graph, split->costs, device);
  QVERIFY(overlap);
  const QString split_file = dir.filePath("split.json");
  QVERIFY(core::save_schedule(split_file.toStdString(), split->graph, *overlap, device.name));
  // resnet50 at batch 8 in two copies, on the saved split-overlap schedule.
  const auto split_as_saved = [&](MainWindow& window) {
    const auto& info = window.document()->graph().info();
    return info.micro_batches == 2 && info.split_batch == 8 && window.document()->schedule().streams == overlap->streams;
  };
  MainWindow fresh;
  QSignalSpy opened(&fresh, &MainWindow::loadFinished);
  fresh.openSchedule(split_file);
  QVERIFY(wait_loads(opened, 1));
  QVERIFY(split_as_saved(fresh));
  // Another model's schedule is refused before any work and changes nothing: a project saved
  // afterwards still re-opens at batch 8, split in two, with its schedule.
  fresh.openSchedule(plain_file);
  QVERIFY(weft::test::wait_until([&] { return opened.count() >= 2; }, 120000));
  QVERIFY(!opened.last().at(0).toBool());
  QVERIFY2(fresh.lastMessage().contains("made for another model"), qPrintable(fresh.lastMessage()));
  QCOMPARE(fresh.document()->graph().info().micro_batches, 2);
  const QString split_project = dir.filePath("split.weft");
  QVERIFY(fresh.saveProject(split_project));
  MainWindow later;
  QSignalSpy reloaded(&later, &MainWindow::loadFinished);
  later.openProject(split_project);
  QVERIFY(wait_loads(reloaded, 1));
  QVERIFY(split_as_saved(later));
  QVERIFY2(!later.lastMessage().contains("refused"), qPrintable(later.lastMessage()));
}

void TestDimsAndMerges::adviceWrapsAtDefaultSize() {
  MainWindow w;  // its default size
  w.show();
  QSignalSpy done(&w, &MainWindow::loadFinished);
  w.openModel(kGooglenet);
  QVERIFY(wait_loads(done, 1));
  QVERIFY(!w.summaryPanel()->advice().isEmpty());
  w.document()->waitForStudy();
  QLabel* notes = w.summaryPanel()->notesLabel();
  auto* scroll = w.summaryPanel()->findChild<QScrollArea*>();
  QVERIFY(scroll);
  // Once the layout has settled (its requests are queued events: a loaded machine is slower).
  weft::test::wait_until([&] { return notes->height() >= notes->heightForWidth(notes->width()); }, 5000);
  // The notes fit the dock's width (wrapped, not cut at the right edge) and get the height their
  // wrapped text needs (not cut at the bottom; the area scrolls when the dock is short).
  QVERIFY2(notes->width() <= scroll->viewport()->width(),
           qPrintable(QString("%1 > %2").arg(notes->width()).arg(scroll->viewport()->width())));
  QVERIFY2(notes->height() >= notes->heightForWidth(notes->width()),
           qPrintable(QString("%1 < %2").arg(notes->height()).arg(notes->heightForWidth(notes->width()))));
  QVERIFY(notes->toolTip().contains(w.summaryPanel()->advice()));
}

// The studio's sweep view runs core::sweep (weft sweep) on the open file, with the document's other
// dims and its device, and draws one line per strategy through the same points; a static batch is
// refused with core's reason.
void TestDimsAndMerges::sweepViewDrawsCoreSweep() {
  MainWindow w;
  w.show();
  w.loads()->setDimBindings({{"batch", 1}});
  QSignalSpy done(&w, &MainWindow::loadFinished);
  w.openModel(kGroupedMlp);
  QVERIFY(wait_loads(done, 1));
  weft::ui::SweepView* view = w.sweepView();
  QVERIFY(view);
  QVERIFY(w.showView("sweep"));
  QSignalSpy swept(view, &weft::ui::SweepView::sweepFinished);
  view->batchesEdit()->setText("1,4");
  QTest::mouseClick(view->runButton(), Qt::LeftButton);
  QVERIFY(weft::test::wait_until([&] { return swept.count() > 0; }, 120000));
  QVERIFY2(swept.last().at(0).toBool(), qPrintable(view->note()));
  weft::core::SweepOptions options;
  options.batches = {1, 4};
  options.device = w.document()->device();
  options.strategy = w.document()->strategyOptions();
  options.mode = weft::core::launch_mode_of(options.strategy);
  auto cli = weft::core::sweep(kGroupedMlp.toStdString(), options);
  QVERIFY(cli);
  const auto& points = view->points();
  QCOMPARE(points.size(), cli->size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    QCOMPARE(points[i].strategy, (*cli)[i].strategy);
    QCOMPARE(points[i].batch, (*cli)[i].batch);
    QCOMPARE(points[i].predicted_speedup, (*cli)[i].predicted_speedup);
  }
  // One line per strategy (two points each) and the 1.0x line.
  const auto series = view->chart()->series();
  std::set<std::string> strategies;
  for (const auto& p : points) strategies.insert(p.strategy);
  QCOMPARE(static_cast<std::size_t>(series.size()), strategies.size() + 1);
  for (QAbstractSeries* a : series) {
    auto* line = qobject_cast<QLineSeries*>(a);
    QVERIFY(line);
    QCOMPARE(line->count(), 2);
    if (line->name() == "1.0x") continue;
    for (const auto& p : points)
      if (QString::fromStdString(p.strategy) == line->name() && p.batch == 4) QCOMPARE(line->at(1).y(), p.predicted_speedup);
  }
  // GoogLeNet's batch is static: re-batched at each point, as weft sweep does.
  w.openModel(kGooglenet);
  QVERIFY(wait_loads(done, 2));
  QVERIFY(view->run());
  QVERIFY(weft::test::wait_until([&] { return swept.count() > 1; }, 120000));
  QVERIFY2(swept.last().at(0).toBool(), qPrintable(view->note()));
  QVERIFY(!view->chart()->series().isEmpty());
  // shufflenet_v2 fixes its batch inside (its output keeps batch 1): refused, and the view says why.
  w.openModel(QStringLiteral(WEFT_TEST_DATA_DIR "/models/shufflenet_v2_x1_0.onnx"));
  QVERIFY(wait_loads(done, 3));
  QVERIFY(view->run());
  QVERIFY(weft::test::wait_until([&] { return swept.count() > 2; }, 120000));
  QVERIFY(!swept.last().at(0).toBool());
  QVERIFY2(view->note().contains("keeps the exported batch"), qPrintable(view->note()));
  QVERIFY(view->chart()->series().isEmpty());
}

QTEST_MAIN(TestDimsAndMerges)
#include "test_dims_and_merges.moc"

// The advice that leads with merging ends in "apply: re-open merged": following it re-opens the
// model merged, on the strategy and launch mode the advice predicted for the merged model (not
// advised again into another), the Merging box ticked; the merged model's advice then names
// nothing to apply.
void TestDimsAndMerges::mergeAdviceAppliesByReopening() {
  MainWindow w;
  w.loads()->setDimBindings({{"batch", 1}});
  QSignalSpy done(&w, &MainWindow::loadFinished);
  w.openModel(kGroupedMlp);
  QVERIFY(wait_loads(done, 1));
  auto* doc = w.document();
  auto* summary = w.summaryPanel();
  QVERIFY(!doc->isMerged());
  summary->waitForAdvice();
  const auto advice = weft::core::advise(doc->graph(), doc->analysis(), doc->device(),
                                         weft::ui::advice_options(doc->strategyOptions(), doc->unsplitBaseline()));
  QVERIFY(advice);
  QVERIFY2(advice->merge_advised, advice->line.c_str());
  QCOMPARE(summary->advice(), QString::fromStdString(advice->line));
  const auto action = summary->adviceAction();
  QVERIFY(action);
  QVERIFY(action->merge && action->reopens());
  QCOMPARE(action->strategy, QString::fromStdString(advice->merge_strategy));
  QLabel* notes = summary->notesLabel();
  QVERIFY2(notes->text().contains(QString("<a href=\"%1\">apply: re-open merged</a>").arg(weft::ui::SummaryPanel::kApplyAdviceLink)),
           qPrintable(notes->text()));
  emit notes->linkActivated(weft::ui::SummaryPanel::kApplyAdviceLink);
  QVERIFY(wait_loads(done, 2));
  QVERIFY(doc->isMerged());
  QVERIFY(w.strategyPanel()->mergeBox()->isChecked());
  QCOMPARE(doc->schedule().strategy, advice->merge_strategy);
  QCOMPARE(doc->strategyOptions().cuda_graph, advice->merge_mode == weft::core::LaunchMode::Graph);
  QCOMPARE(doc->schedule().stream_count(), static_cast<std::size_t>(advice->merge_streams));
  QVERIFY2(w.lastMessage().contains("applied the advice: merged, " + QString::fromStdString(advice->merge_strategy)),
           qPrintable(w.lastMessage()));
  QVERIFY2(!w.lastMessage().contains("opened as advised"), qPrintable(w.lastMessage()));
  // The prediction is the one the advice quoted: the merged schedule over the unmerged model's
  // sequential CUDA Graph.
  doc->waitForStudy();
  QVERIFY(weft::test::wait_until([&] { return summary->mergeGain().has_value(); }));
  QVERIFY2(std::abs(summary->mergeGain()->speedup_vs_graph - advice->merge_speedup) < 1e-6 * advice->merge_speedup,
           qPrintable(QString("%1 vs %2").arg(summary->mergeGain()->speedup_vs_graph).arg(advice->merge_speedup)));
  summary->waitForAdvice();
  QVERIFY2(!summary->adviceApplicable(), qPrintable(summary->advice()));
  QVERIFY(!notes->text().contains(weft::ui::SummaryPanel::kApplyAdviceLink));
}
