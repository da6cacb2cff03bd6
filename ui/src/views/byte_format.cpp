#include "weft/ui/byte_format.h"

#include <QLocale>
#include <QObject>

namespace weft::ui {

QString format_bytes(std::int64_t bytes) {
  if (bytes < 0) return QObject::tr("unknown");
  return QLocale::system().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat);
}

QString format_bytes_fine(std::int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= kMiB) return QString("%1 MiB").arg(b / kMiB, 0, 'f', 2);
  if (b >= 1024) return QString("%1 KiB").arg(b / 1024, 0, 'f', 1);
  return QString("%1 B").arg(bytes);
}

ByteUnit chart_unit(std::int64_t max_bytes) {
  const double b = static_cast<double>(max_bytes);
  if (b < kMiB) return {1024.0, "KiB"};
  if (b < 1024.0 * kMiB) return {kMiB, "MiB"};
  return {1024.0 * kMiB, "GiB"};
}

}  // namespace weft::ui
