#include "schedule_command.h"

#include "weft/ui/studio_document.h"

namespace weft::ui {

ScheduleCommand::ScheduleCommand(StudioDocument* doc, const QString& text, core::Schedule before, core::Schedule after)
    : QUndoCommand(text), m_doc(doc), m_before(std::move(before)), m_after(std::move(after)) {}

// Each swap re-studies the schedule in the document's worker, as any edit does.
void ScheduleCommand::redo() { m_doc->setScheduleInternal(m_after); }
void ScheduleCommand::undo() { m_doc->setScheduleInternal(m_before); }

}  // namespace weft::ui
