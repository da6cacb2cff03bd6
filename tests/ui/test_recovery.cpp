// Crash recovery: a studio process editing a real model is killed (SIGKILL) while it edits;
// a new studio finds its autosave, offers to recover it and restores the edits (a state the
// killed studio had reached at or after an autosave it reported). Declining discards the file;
// WEFT_RECOVER=accept recovers without asking; a running studio's file is never offered; saving
// removes the session's file.
#include <QApplication>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <cstdio>

#include "ui_test_support.h"
#include "weft/ui/load_controller.h"
#include "weft/ui/main_window.h"
#include "weft/ui/recovery_store.h"

using weft::ui::MainWindow;

namespace {

const QString kModel = QStringLiteral(WEFT_TEST_DATA_DIR "/models/squeezenet1_1.onnx");

// The schedule as text: stream by stream, the node keys in order.
QString state_of(const MainWindow& w) {
  QStringList streams;
  for (const auto& stream : w.document()->schedule().streams) {
    QStringList keys;
    for (weft::core::NodeId v : stream) keys << QString::fromStdString(w.document()->graph().key(v));
    streams << keys.join(',');
  }
  return streams.join('|');
}

// The child: a studio that opens the model, then edits it every 40 ms (a stream added, then a
// node moved onto it, ...), printing each state it reaches and each autosave, until killed.
int child_main(int argc, char** argv) {
  QApplication app(argc, argv);
  QStandardPaths::setTestModeEnabled(true);
  MainWindow w;
  w.show();
  int edits = 0;
  QTimer editor;
  editor.setInterval(40);
  QObject::connect(&editor, &QTimer::timeout, &w, [&] {
    auto* doc = w.document();
    const int streams = static_cast<int>(doc->schedule().streams.size());
    bool edited = false;
    if (edits % 2 == 0 || streams < 2) {
      edited = doc->addStream();
    } else {
      const auto& order = doc->graph().topo_order();
      const weft::core::NodeId v = order[static_cast<std::size_t>(edits) % order.size()];
      edited = doc->moveNodes({v}, streams - 1, 0);
    }
    ++edits;
    if (!edited) doc->removeStream(streams - 1);  // keep editing once the cap is reached
    std::printf("edit %s\n", qPrintable(state_of(w)));
    std::fflush(stdout);
  });
  QObject::connect(w.loads()->recoveryStore(), &weft::ui::RecoveryStore::autosaved, &w, [&](const QString&) {
    std::printf("autosaved %s\n", qPrintable(state_of(w)));
    std::fflush(stdout);
  });
  QObject::connect(&w, &MainWindow::loadFinished, &w, [&](bool ok, const QString& message) {
    std::printf("loaded %d %s\n", ok ? 1 : 0, qPrintable(message));
    std::fflush(stdout);
    if (ok) editor.start();
  });
  w.openModel(argv[2]);
  return app.exec();
}

bool wait_loaded(QSignalSpy& spy) {
  return weft::test::wait_until([&] { return spy.count() > 0; }, 60000) && spy.last().at(0).toBool();
}

}  // namespace

class TestRecovery : public QObject {
  Q_OBJECT
 private slots:
  void init() {
    QVERIFY(m_dir.isValid());
    qputenv("WEFT_RECOVERY_DIR", m_dir.path().toUtf8());
    qputenv("WEFT_AUTOSAVE_MS", "150");
    qunsetenv("WEFT_RECOVER");
  }
  void killedStudioIsRecovered();
  void declinedRecoveryIsDiscarded();
  void environmentAcceptsRecovery();
  void savingClearsTheRecoveryFile();

 private:
  QTemporaryDir m_dir;
};

void TestRecovery::killedStudioIsRecovered() {
  QProcess child;
  child.setProgram(QCoreApplication::applicationFilePath());
  child.setArguments({"--child", kModel});
  child.setProcessChannelMode(QProcess::SeparateChannels);
  child.start();
  QVERIFY(child.waitForStarted(20000));

  // Edits and autosaves as the child reports them, line by line.
  QStringList edits;
  int autosaves = 0;
  int edits_at_third_autosave = -1;
  QByteArray pending;
  auto read_lines = [&] {
    pending += child.readAllStandardOutput();
    for (int nl; (nl = pending.indexOf('\n')) >= 0;) {
      const QString line = QString::fromUtf8(pending.left(nl));
      pending.remove(0, nl + 1);
      if (line.startsWith("edit ")) edits << line.mid(5);
      if (line.startsWith("autosaved ") && ++autosaves == 3) edits_at_third_autosave = static_cast<int>(edits.size());
    }
  };
  const bool saved = weft::test::wait_until(
      [&] {
        child.waitForReadyRead(10);
        read_lines();
        return autosaves >= 3 || child.state() != QProcess::Running;
      },
      90000);
  QVERIFY2(saved && autosaves >= 3, qPrintable("child output: " + child.readAllStandardError()));
  // While the child runs its file is there, and not offered: its session holds the lock.
  const QString child_file = m_dir.filePath(QString("session-%1.weft").arg(child.processId()));
  QVERIFY(QFile::exists(child_file));
  QVERIFY(weft::ui::RecoveryStore(nullptr, m_dir.path()).orphans().isEmpty());
  child.kill();  // SIGKILL, while it keeps editing
  QVERIFY(child.waitForFinished(20000));
  QCOMPARE(child.exitStatus(), QProcess::CrashExit);
  read_lines();
  QVERIFY(edits_at_third_autosave > 0);
  // What the file may hold: the state of the third autosave, or of a later one.
  const QStringList allowed = edits.mid(edits_at_third_autosave - 1);

  MainWindow w;
  w.show();
  QSignalSpy loaded(&w, &MainWindow::loadFinished);
  QCOMPARE(w.loads()->offerRecovery(), 1);
  QMessageBox* prompt = w.loads()->recoveryPrompt();
  QVERIFY(prompt != nullptr);
  QVERIFY(prompt->isVisible());
  QVERIFY(!prompt->isModal());  // the window stays usable while the prompt waits
  QVERIFY(prompt->text().contains("squeezenet1_1.onnx"));
  prompt->button(QMessageBox::Yes)->click();
  QVERIFY(wait_loaded(loaded));
  const QString recovered = state_of(w);
  QVERIFY2(allowed.contains(recovered), qPrintable("recovered " + recovered));
  QVERIFY(w.document()->schedule().streams.size() > 1);  // edits, not a fresh schedule
  QVERIFY(w.windowTitle().contains("recovered"));
  // The orphan is gone; the recovered edits are this session's to autosave now.
  QVERIFY(w.loads()->recoveryStore()->orphans().isEmpty());
  QVERIFY(weft::test::wait_until([&] { return QFile::exists(w.loads()->recoveryStore()->sessionFile()); }, 10000));
}

void TestRecovery::declinedRecoveryIsDiscarded() {
  // A file left by a session that no longer runs (pid 999999 has no lock, no process).
  const QString orphan = m_dir.filePath("session-999999.weft");
  {
    MainWindow writer;
    QSignalSpy loaded(&writer, &MainWindow::loadFinished);
    writer.openModel(kModel);
    QVERIFY(wait_loaded(loaded));
    QVERIFY(writer.document()->addStream());
    QVERIFY(writer.saveProject(orphan));
  }
  MainWindow w;
  QCOMPARE(w.loads()->offerRecovery(), 1);
  QVERIFY(w.loads()->recoveryPrompt() != nullptr);
  w.loads()->recoveryPrompt()->button(QMessageBox::No)->click();
  QVERIFY(!QFile::exists(orphan));
  QCOMPARE(w.loads()->offerRecovery(), 0);
  QVERIFY(!w.document()->hasModel());
}

void TestRecovery::environmentAcceptsRecovery() {
  const QString orphan = m_dir.filePath("session-999998.weft");
  int streams = 0;
  {
    MainWindow writer;
    QSignalSpy loaded(&writer, &MainWindow::loadFinished);
    writer.openModel(kModel);
    QVERIFY(wait_loaded(loaded));
    QVERIFY(writer.document()->addStream());
    QVERIFY(writer.document()->addStream());
    streams = static_cast<int>(writer.document()->schedule().streams.size());
    QVERIFY(writer.saveProject(orphan));
  }
  qputenv("WEFT_RECOVER", "accept");
  MainWindow w;
  QSignalSpy loaded(&w, &MainWindow::loadFinished);
  QCOMPARE(w.loads()->offerRecovery(), 1);
  QVERIFY(w.loads()->recoveryPrompt() == nullptr);  // no question asked
  QVERIFY(wait_loaded(loaded));
  QCOMPARE(static_cast<int>(w.document()->schedule().streams.size()), streams);
  QVERIFY(!QFile::exists(orphan));
}

void TestRecovery::savingClearsTheRecoveryFile() {
  MainWindow w;
  QSignalSpy loaded(&w, &MainWindow::loadFinished);
  w.openModel(kModel);
  QVERIFY(wait_loaded(loaded));
  QVERIFY(!QFile::exists(w.loads()->recoveryStore()->sessionFile()));  // nothing unsaved yet
  QVERIFY(w.document()->addStream());
  QVERIFY(w.loads()->recoveryStore()->autosaveNow());
  QVERIFY(QFile::exists(w.loads()->recoveryStore()->sessionFile()));
  QVERIFY(w.saveProject(m_dir.filePath("saved.weft")));
  QVERIFY(!QFile::exists(w.loads()->recoveryStore()->sessionFile()));
}

int main(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[1]) == "--child") return child_main(argc, argv);
  QApplication app(argc, argv);
  app.setAttribute(Qt::AA_Use96Dpi, true);
  QStandardPaths::setTestModeEnabled(true);
  TestRecovery test;
  QTEST_SET_MAIN_SOURCE_PATH
  return QTest::qExec(&test, argc, argv);
}

#include "test_recovery.moc"
