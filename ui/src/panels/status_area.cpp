#include "weft/ui/status_area.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>

namespace weft::ui {

StatusArea::StatusArea(QStatusBar* bar, QObject* parent) : QObject(parent), m_bar(bar) {
  m_summary = new QLabel(tr("Open an ONNX model (Ctrl+O) or drop one on the window."), bar);
  bar->addWidget(m_summary, 1);
  m_progress = new QProgressBar(bar);
  m_progress->setMaximumWidth(220);
  m_progress->setTextVisible(true);
  m_progress->hide();
  m_cancel = new QPushButton(tr("Cancel"), bar);
  m_cancel->hide();
  bar->addPermanentWidget(m_progress);
  bar->addPermanentWidget(m_cancel);
  connect(m_cancel, &QPushButton::clicked, this, &StatusArea::cancelRequested);
}

void StatusArea::showMessage(const QString& text, bool error) {
  m_last_message = text;
  m_bar->showMessage(text, error ? 15000 : 6000);
  m_bar->setStyleSheet(error ? "QStatusBar { color: #c0392b; }" : QString());
}

void StatusArea::setSummary(const QString& text) { m_summary->setText(text); }

void StatusArea::startProgress(const QString& format) {
  m_progress->setValue(0);
  m_progress->setFormat(format);
  m_progress->show();
  m_cancel->show();
}

void StatusArea::setProgress(int value) { m_progress->setValue(value); }

void StatusArea::setProgressText(const QString& text) { m_progress->setFormat(text + " %p%"); }

void StatusArea::hideProgress() {
  m_progress->hide();
  m_cancel->hide();
}

}  // namespace weft::ui
