#pragma once
// The Timeline dock's content: a tool bar (fit, zoom, event arrows, a hint) over the TimelineView.
#include <QWidget>

namespace weft::ui {

class StudioDocument;
class TimelineView;

class TimelinePanel : public QWidget {
  Q_OBJECT
 public:
  explicit TimelinePanel(StudioDocument* doc, QWidget* parent = nullptr);
  TimelineView* view() const { return m_view; }

 private:
  TimelineView* m_view;
};

}  // namespace weft::ui
