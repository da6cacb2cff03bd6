#include "weft/ui/timeline_panel.h"

#include <QAction>
#include <QLabel>
#include <QToolBar>
#include <QVBoxLayout>

#include "weft/ui/timeline_view.h"

namespace weft::ui {

TimelinePanel::TimelinePanel(StudioDocument* doc, QWidget* parent) : QWidget(parent), m_view(new TimelineView(doc, this)) {
  auto* bar = new QToolBar(this);
  auto tool = [bar](const QString& text, const QString& tip) {
    QAction* a = bar->addAction(text);
    a->setToolTip(tip);
    return a;
  };
  connect(tool(tr("Fit"), tr("Show every run (F)")), &QAction::triggered, m_view, &TimelineView::fit);
  connect(tool(tr("Zoom in"), tr("Zoom in (+, or the wheel)")), &QAction::triggered, m_view, [this] { m_view->zoomBy(1.25); });
  connect(tool(tr("Zoom out"), tr("Zoom out (-)")), &QAction::triggered, m_view, [this] { m_view->zoomBy(0.8); });
  bar->addAction(m_view->arrowsAction());
  bar->addSeparator();
  auto* hint = new QLabel(tr("wheel: zoom at the cursor · drag: pan · Shift+drag or drag on the ruler: range statistics · "
                             "click: select the node"),
                          bar);
  hint->setForegroundRole(QPalette::PlaceholderText);
  bar->addWidget(hint);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(bar);
  layout->addWidget(m_view);
}

}  // namespace weft::ui
