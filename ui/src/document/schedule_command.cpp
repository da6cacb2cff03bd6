#include "schedule_command.h"

#include "weft/ui/studio_document.h"

namespace weft::ui {

ScheduleCommand::ScheduleCommand(StudioDocument* doc, const QString& text, State before, State after)
    : QUndoCommand(text), m_doc(doc), m_before(std::move(before)), m_after(std::move(after)) {}

// Each swap re-studies the schedule in the document's worker, as any edit does.
void ScheduleCommand::redo() { m_doc->restoreEdit(m_after.schedule, m_after.options, m_after.ideal_us); }
void ScheduleCommand::undo() { m_doc->restoreEdit(m_before.schedule, m_before.options, m_before.ideal_us); }

}  // namespace weft::ui
