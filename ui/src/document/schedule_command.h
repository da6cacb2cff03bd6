#pragma once
// The one QUndoCommand every schedule edit goes through: the core edit API computed the schedule
// after the edit from the one before; undo and redo swap them on the document's undo stack.
#include <QString>
#include <QUndoCommand>

#include "weft/core/schedule/schedule.h"
#include "weft/core/strategy/strategies.h"

namespace weft::ui {

class StudioDocument;

class ScheduleCommand : public QUndoCommand {
 public:
  /// A schedule with the strategy options it was made with (the launch mode it is predicted in).
  struct State {
    core::Schedule schedule;
    core::StrategyOptions options;
    double ideal_us = -1;  ///< its ideal makespan (< 0: not known, computed when restored)
  };
  /// `after` was validated by the core edit API (or by validate_schedule) for `doc`'s graph.
  ScheduleCommand(StudioDocument* doc, const QString& text, State before, State after);
  void redo() override;
  void undo() override;

 private:
  StudioDocument* m_doc;
  State m_before, m_after;
};

}  // namespace weft::ui
