#pragma once
// Byte counts for people, as the panels and the memory view show them.
#include <QString>
#include <cstdint>

namespace weft::ui {

/// IEC units with one decimal ("6.1 MiB"); "unknown" for a negative count.
QString format_bytes(std::int64_t bytes);

}  // namespace weft::ui
