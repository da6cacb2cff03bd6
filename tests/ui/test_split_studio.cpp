// A micro-batch split model in the studio: the loader opens the split graph (its source splits
// the imported model) and split-overlap's first schedule has one lane per copy, each lane holding
// that copy's operators.
#include <QTest>

#include "ui_test_support.h"
#include "weft/core/micro_batch.h"
#include "weft/core/onnx_import.h"
#include "weft/ui/model_loader.h"

class TestSplitStudio : public QObject {
  Q_OBJECT
 private slots:
  void splitModelOpensWithALanePerCopy();
};

void TestSplitStudio::splitModelOpensWithALanePerCopy() {
  weft::ui::LoadRequest request;
  request.path = QStringLiteral(WEFT_TEST_DATA_DIR "/models/squeezenet1_1.onnx");
  const std::string path = request.path.toStdString();
  request.source = [path]() -> weft::core::Expected<weft::core::Graph> {
    weft::core::ImportOptions options;
    options.batch = 4;
    WEFT_TRY_ASSIGN(auto graph, weft::core::import_onnx(path, options));
    return weft::core::split_batch(graph, 2);
  };
  request.strategy = QStringLiteral("split-overlap");
  request.device = QStringLiteral("h200");
  weft::ui::LoadJob job = weft::ui::start_loading(request);
  QVERIFY(weft::test::wait_until([&] { return job.future.isFinished(); }, 60000));
  QVERIFY2(job.future.resultCount() > 0, qPrintable(*job.error));
  const weft::ui::LoadedModel m = job.future.result();
  QCOMPARE(m.graph->info().micro_batches, 2);
  QCOMPARE(m.schedule.strategy, std::string("split-overlap"));
  QCOMPARE(m.schedule.stream_count(), std::size_t{2});
  for (std::size_t s = 0; s < 2; ++s) {
    std::size_t own = 0;
    for (weft::core::NodeId v : m.schedule.streams[s]) own += m.graph->info().micro_batch_of[static_cast<std::size_t>(v)] == static_cast<int>(s);
    QVERIFY2(own + 1 >= m.schedule.streams[s].size(), "a lane holds another copy's operators");
  }
}

QTEST_MAIN(TestSplitStudio)
#include "test_split_studio.moc"
