#pragma once
// Byte counts for people, as the panels and the memory view show them.
#include <QString>
#include <cstdint>

namespace weft::ui {

/// Bytes in a MiB (the views draw arenas in MiB).
inline constexpr double kMiB = 1024.0 * 1024.0;

/// IEC units with one decimal ("6.1 MiB"); "unknown" for a negative count.
QString format_bytes(std::int64_t bytes);
/// The memory view's finer figures: MiB with two decimals ("6.13 MiB"), KiB with one, else bytes.
QString format_bytes_fine(std::int64_t bytes);

/// The unit a chart of byte counts up to `max_bytes` reads best in: KiB below 1 MiB, MiB below
/// 1 GiB, else GiB (a 16 KiB arena drawn in MiB would label every tick 0.0).
struct ByteUnit {
  double bytes = kMiB;
  QString name = "MiB";
};
ByteUnit chart_unit(std::int64_t max_bytes);

}  // namespace weft::ui
