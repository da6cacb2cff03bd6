// Exports and polish: every export writes a valid file (PNG of the view's size, SVG that parses,
// CSV with a header and one row per node, Chrome trace with one X event per run item, schedule
// JSON that re-imports equal); settings round-trip in a temporary scope; the theme switch changes a
// custom view's background; Help lists the actions' shortcuts; About names the versions.
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include "ui_test_support.h"
#include "weft/core/base/csv.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/study/prediction.h"
#include "weft/core/strategy/reference.h"
#include "weft/ui/exports.h"
#include "weft/ui/graph_view.h"
#include "weft/ui/main_window.h"
#include "weft/ui/memory_view.h"
#include "weft/ui/offset_map_view.h"
#include "weft/ui/theme.h"
#include "weft/ui/timeline_view.h"

using weft::ui::MainWindow;

namespace {
const QString kGooglenet = QStringLiteral(WEFT_TEST_DATA_DIR "/models/googlenet.onnx");

bool load(MainWindow& w, const QString& path) {
  QSignalSpy done(&w, &MainWindow::loadFinished);
  w.openModel(path);
  return weft::test::wait_until([&] { return done.count() > 0; }, 60000) && done.last().at(0).toBool();
}

QByteArray read_all(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// RFC 4180 records: quoted fields may hold commas, quotes (doubled) and line breaks.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += text[++i];
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
      ++i;
    } else {
      field += c;
    }
    any = true;
  }
  if (!field.empty()) rows.back().push_back(field);
  if (rows.back().empty()) rows.pop_back();
  if (!any) rows.clear();
  return rows;
}

int window_lightness(QWidget* w) {
  const QImage img = w->grab().toImage();
  return img.isNull() ? -1 : QColor(img.pixel(3, 3)).lightness();
}
}  // namespace

class TestExports : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("weft-tests");
    QCoreApplication::setApplicationName("test_exports");
    QSettings().clear();
  }
  void cleanupTestCase() { QSettings().clear(); }
  void csvFieldsAreQuoted();
  void everyExportIsValid();
  void settingsRoundTrip();
  void devicePresetDrivesLoading();
  void themeSwitchRecoloursViews();
  void helpListsShortcutsAndVersions();
};

void TestExports::csvFieldsAreQuoted() {
  // RFC 4180: commas, quotes and line breaks force quoting; quotes double.
  QCOMPARE(weft::core::csv_field("conv1"), std::string("conv1"));
  QCOMPARE(weft::core::csv_field("a,b"), std::string("\"a,b\""));
  QCOMPARE(weft::core::csv_field("say \"hi\""), std::string("\"say \"\"hi\"\"\""));
  QCOMPARE(weft::core::csv_field("two\nlines"), std::string("\"two\nlines\""));
  QCOMPARE(parse_csv("\"a,b\",\"say \"\"hi\"\"\"\r\nx,y\r\n"),
           (std::vector<std::vector<std::string>>{{"a,b", "say \"hi\""}, {"x", "y"}}));
}

void TestExports::everyExportIsValid() {
  MainWindow w;
  w.resize(1400, 900);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  QVERIFY(load(w, kGooglenet));
  auto* doc = w.document();
  doc->waitForStudy();  // the predicted runs come from the document's worker
  const auto& g = doc->graph();
  // Two runs beside the document's three predicted ones (current, sequential eager and graph), as
  // a measured run would be added: the current schedule and the sequential one.
  weft::core::SimOptions sim;
  sim.label = "predicted, \"current\"";  // a label that needs CSV quoting
  doc->addRun(weft::core::simulate(g, doc->schedule(), doc->analysis().costs, doc->device(), sim));
  weft::core::Schedule seq;
  seq.streams.emplace_back(g.topo_order().begin(), g.topo_order().end());
  sim.label = "sequential";
  doc->addRun(weft::core::simulate(g, seq, doc->analysis().costs, doc->device(), sim));
  QCOMPARE(doc->runs().size(), std::size_t{2});
  const auto runs = weft::ui::exportable_runs(*doc);
  QCOMPARE(runs.size(), doc->predictedRuns().size() + 2);
  QCOMPARE(doc->predictedRuns().size(), std::size_t{3});
  QCOMPARE(runs[3], &doc->runs()[0]);
  QTemporaryDir dir;
  QVERIFY(dir.isValid());

  // Chrome trace: JSON with traceEvents, one X event per item of the chosen runs, pid = position
  // among the chosen + 1.
  const QString trace = dir.filePath("trace.json");
  QVERIFY(w.exportChromeTrace(trace, {3, 4}));
  QJsonParseError err;
  const QJsonDocument tj = QJsonDocument::fromJson(read_all(trace), &err);
  QVERIFY2(!tj.isNull(), qPrintable(err.errorString()));
  QVERIFY(tj.object().contains("traceEvents"));
  int x_events[3] = {0, 0, 0};
  for (const QJsonValue& e : tj.object()["traceEvents"].toArray())
    if (e.toObject()["ph"].toString() == "X") {
      const int pid = e.toObject()["pid"].toInt();
      QVERIFY(pid == 1 || pid == 2);
      ++x_events[pid];
    }
  QCOMPARE(x_events[1], static_cast<int>(doc->runs()[0].items.size()));
  QCOMPARE(x_events[2], static_cast<int>(doc->runs()[1].items.size()));
  QCOMPARE(x_events[1], static_cast<int>(g.node_count()));
  // Only the chosen runs go in: here the predicted current schedule alone, named in the trace.
  QVERIFY(w.exportChromeTrace(trace, {0}));
  int only = 0;
  bool named = false;
  for (const QJsonValue& e : QJsonDocument::fromJson(read_all(trace)).object()["traceEvents"].toArray()) {
    if (e.toObject()["ph"].toString() == "X") ++only;
    if (e.toObject()["ph"].toString() == "M" && e.toObject()["name"].toString() == "process_name")
      named = named || e.toObject()["args"].toObject()["name"].toString().toStdString() == doc->predictedRuns()[0].label;
  }
  QCOMPARE(only, static_cast<int>(doc->predictedRuns()[0].items.size()));
  QVERIFY(named);

  // CSV: header + one row per node, every row as wide as the header, times that match the runs.
  const QString csv = dir.filePath("times.csv");
  QVERIFY(w.exportNodeTimes(csv));
  const auto rows = parse_csv(read_all(csv).toStdString());
  QCOMPARE(rows.size(), g.node_count() + 1);
  std::vector<std::string> header{"node", "op", "stream", "position", "predicted_us"};
  for (const auto* r : runs) {
    header.push_back(r->label + " start_us");
    header.push_back(r->label + " end_us");
  }
  QCOMPARE(header.size(), std::size_t{5 + 2 * 5});
  QCOMPARE(header[11], std::string("predicted, \"current\" start_us"));
  QCOMPARE(rows[0], header);
  for (std::size_t r = 1; r < rows.size(); ++r) QCOMPARE(rows[r].size(), header.size());
  for (const auto& it : doc->runs()[1].items) {
    const auto& row = rows[static_cast<std::size_t>(it.node) + 1];
    QCOMPARE(row[0], g.key(it.node));
    QCOMPARE(std::stoi(row[2]), doc->streamOf(it.node));
    QVERIFY(std::abs(std::stod(row[13]) - it.start_us) < 1e-3);
    QVERIFY(std::abs(std::stod(row[14]) - it.end_us) < 1e-3);
  }

  // Schedule JSON re-imports equal.
  const QString sched = dir.filePath("schedule.json");
  QVERIFY(w.exportSchedule(sched));
  auto back = weft::core::schedule_from_json(g, read_all(sched).toStdString());
  QVERIFY2(back, back ? "" : back.error().message.c_str());
  QCOMPARE(back->streams, doc->schedule().streams);
  QCOMPARE(back->events.size(), doc->schedule().events.size());

  // Images of every view: PNG at the widget's size, SVG that parses as XML and as SVG.
  const QStringList views = w.exportableViews();
  for (const char* v : {"Graph", "Stream lanes", "Memory", "Timeline", "Memory chart", "Offset map", "Main window"})
    QVERIFY2(views.contains(v), v);
  int n = 0;
  for (const QString& view : views) {
    const QString png = dir.filePath(QString("view%1.png").arg(n));
    const QString svg = dir.filePath(QString("view%1.svg").arg(n++));
    QVERIFY2(w.exportViewImage(view, png), qPrintable(view));
    QWidget* widget = w.exportableView(view);
    QVERIFY2(widget->isVisible(), qPrintable(view));  // a background tab was brought forward
    QImage img(png);
    QVERIFY2(!img.isNull(), qPrintable(view));
    QCOMPARE(img.size(), widget->size());
    QVERIFY2(w.exportViewImage(view, svg), qPrintable(view));
    const QByteArray svg_bytes = read_all(svg);
    QXmlStreamReader xml(svg_bytes);
    bool saw_svg = false;
    while (!xml.atEnd())
      if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("svg")) saw_svg = true;
    QVERIFY2(!xml.hasError(), qPrintable(view + ": " + xml.errorString()));
    QVERIFY(saw_svg);
    QSvgRenderer renderer(svg_bytes);
    QVERIFY2(renderer.isValid(), qPrintable(view));
    qInfo("%s: png %dx%d, svg %lld bytes, %lld paths, %lld polylines, %lld images", qPrintable(view), img.width(), img.height(),
          static_cast<long long>(svg_bytes.size()), static_cast<long long>(svg_bytes.count("<path")),
          static_cast<long long>(svg_bytes.count("<polyline")), static_cast<long long>(svg_bytes.count("<image")));
  }
  // The offset map's PNG is not blank: blocks in stream colours were drawn.
  w.exportViewImage("Offset map", dir.filePath("map.png"));
  const QImage map(dir.filePath("map.png"));
  QSet<QRgb> colours;
  for (int y = 0; y < map.height(); y += 4)
    for (int x = 0; x < map.width(); x += 4) colours.insert(map.pixel(x, y));
  QVERIFY(colours.size() > 4);
  // Nothing half-written or left behind: only the files asked for exist.
  QVERIFY(!QFile::exists(trace + ".tmp"));
}

void TestExports::settingsRoundTrip() {
  // Device preset, theme, export folder and the dock layout survive a restart (in a test scope).
  QTemporaryDir dir;
  {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setDevicePreset("h100-sxm");
    w.setTheme(weft::ui::Theme::Dark);
    QVERIFY(w.exportNodeTimes(dir.filePath("none.csv")) == false);  // no model: nothing written
    QSettings().setValue("export/folder", dir.path());
    w.findChild<QDockWidget*>("summaryDock")->hide();
    w.close();
  }
  MainWindow w2;
  QCOMPARE(w2.devicePreset(), QString("h100-sxm"));
  QCOMPARE(w2.theme(), weft::ui::Theme::Dark);
  QCOMPARE(w2.lastExportFolder(), dir.path());
  QVERIFY(w2.findChild<QDockWidget*>("summaryDock")->isHidden());
  QVERIFY(!w2.findChild<QDockWidget*>("lanesDock")->isHidden());
  // A folder that vanished falls back to home.
  QSettings().setValue("export/folder", dir.filePath("gone"));
  QCOMPARE(w2.lastExportFolder(), QDir::homePath());
  w2.setTheme(weft::ui::Theme::System);
  w2.setDevicePreset("");
  QSettings().remove("layout");
}

void TestExports::devicePresetDrivesLoading() {
  // The chosen preset is the device the next model loads with.
  MainWindow w;
  w.setDevicePreset("l4");
  QVERIFY(load(w, kGooglenet));
  QCOMPARE(QString::fromStdString(w.document()->device().name), QString("l4"));
  w.setDevicePreset("h100-sxm");  // reloads the open model with it
  QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(w.document()->device().name), QString("h100-sxm"), 60000);
  w.setDevicePreset("");
}

void TestExports::themeSwitchRecoloursViews() {
  // Custom-painted views take their background from the palette: light, then dark, then back.
  MainWindow w;
  w.resize(1200, 800);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  QVERIFY(load(w, kGooglenet));
  w.showView("memory");
  QCoreApplication::processEvents();
  w.setTheme(weft::ui::Theme::Light);
  QCoreApplication::processEvents();
  QVERIFY(window_lightness(w.graphView()) > 200);
  QVERIFY(window_lightness(w.memoryView()->offsetMap()) > 200);
  QVERIFY(window_lightness(w.timelineView()) > 200);
  w.setTheme(weft::ui::Theme::Dark);
  QCoreApplication::processEvents();
  QVERIFY(weft::ui::is_dark(QApplication::palette()));
  QVERIFY(window_lightness(w.graphView()) < 80);
  QVERIFY(window_lightness(w.memoryView()->offsetMap()) < 80);
  QVERIFY(window_lightness(w.memoryView()->chart()) < 80);
  QVERIFY(window_lightness(w.timelineView()) < 80);
  QCOMPARE(QSettings().value("view/theme").toString(), QString("dark"));
  w.setTheme(weft::ui::Theme::System);
  QCOMPARE(weft::ui::current_theme(), weft::ui::Theme::System);
}

void TestExports::helpListsShortcutsAndVersions() {
  // The shortcut list is generated from the actions: every action with a shortcut appears once.
  MainWindow w;
  const auto list = w.shortcutList();
  for (const auto& [name, keys] : list) {
    QVERIFY(!name.isEmpty());
    QVERIFY(!keys.isEmpty());
  }
  int with_shortcut = 0;
  for (const QAction* a : w.findChildren<QAction*>())
    if (!a->shortcuts().isEmpty()) ++with_shortcut;
  QCOMPARE(list.size(), with_shortcut);
  bool open = false;
  for (const auto& [name, keys] : list)
    if (name == "File › Open model...") open = keys == QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText);
  QVERIFY(open);
  const QString about = w.aboutText();
  QVERIFY(about.contains(QString("Weft Studio</b> ") + WEFT_VERSION_FOR_TESTS));
  QVERIFY(about.contains(qVersion()));
  QVERIFY(about.contains("protobuf 3") || about.contains("protobuf 4") || about.contains("protobuf unknown"));
  QVERIFY(about.contains("CUDA"));
}

QTEST_MAIN(TestExports)
#include "test_exports.moc"
