// The malformed-input corpus (tests/data/bad/manifest.json) through the studio's loaders: every
// model `weft analyze` refuses, the studio's background loader refuses with the same message (and
// opens what analyze accepts); every broken project file is refused by load_project, naming it.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "ui_test_support.h"
#include "weft/ui/load_job.h"
#include "weft/ui/project_file.h"

namespace {

const QString kCorpus = QStringLiteral(WEFT_TEST_DATA_DIR "/bad");

QJsonArray cases() {
  QFile f(kCorpus + "/manifest.json");
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object()["cases"].toArray();
}

// The expectation of `weft analyze` for a model case: what the studio's loader must match.
QJsonObject analyze_run(const QJsonObject& c) {
  for (const auto& r : c["runs"].toArray())
    if (r.toObject()["command"].toString() == "analyze") return r.toObject();
  return {};
}

}  // namespace

class TestBadInputsStudio : public QObject {
  Q_OBJECT
 private slots:
  void modelsRefusedByTheLoader();
  void projectsRefusedByTheLoader();
};

void TestBadInputsStudio::modelsRefusedByTheLoader() {
  int checked = 0;
  for (const auto& value : cases()) {
    const QJsonObject c = value.toObject();
    if (c["kind"].toString() != "model" || !c["studio"].toBool()) continue;
    const QJsonObject expect = analyze_run(c);
    QVERIFY2(!expect.isEmpty(), qPrintable(c["name"].toString()));
    weft::ui::LoadRequest request;
    request.path = kCorpus + "/" + c["file"].toString();
    weft::ui::LoadJob job = weft::ui::start_loading(request);
    QVERIFY2(weft::test::wait_until([&] { return job.future.isFinished(); }, 60000), qPrintable(c["name"].toString()));
    const bool loaded = job.future.resultCount() > 0;
    const QString what = c["name"].toString() + ": " + *job.error;
    if (expect["code"].toInt() == 0) {
      QVERIFY2(loaded, qPrintable(what));
    } else {
      QVERIFY2(!loaded, qPrintable(what));
      QVERIFY2(job.error->contains(expect["message"].toString()), qPrintable(what));
      QVERIFY2(job.error->contains(c["file"].toString().section('/', -1)), qPrintable(what));
    }
    ++checked;
  }
  QVERIFY(checked >= 25);
}

void TestBadInputsStudio::projectsRefusedByTheLoader() {
  int checked = 0;
  for (const auto& value : cases()) {
    const QJsonObject c = value.toObject();
    if (c["kind"].toString() != "project") continue;
    auto project = weft::ui::load_project(kCorpus + "/" + c["file"].toString());
    const int code = project ? 0 : weft::core::exit_code(project.error().kind);
    const QString what = c["name"].toString() + ": " + (project ? QString("loaded") : QString::fromStdString(project.error().message));
    QVERIFY2(code == c["code"].toInt(), qPrintable(what));
    if (!project) QVERIFY2(what.contains(c["message"].toString()), qPrintable(what));
    if (project) QVERIFY2(QFile::exists(project->model_path), qPrintable(project->model_path));
    ++checked;
  }
  QVERIFY(checked >= 6);
}

QTEST_MAIN(TestBadInputsStudio)
#include "test_bad_inputs_studio.moc"
