#include "weft/ui/byte_format.h"

#include <QLocale>
#include <QObject>

namespace weft::ui {

QString format_bytes(std::int64_t bytes) {
  if (bytes < 0) return QObject::tr("unknown");
  return QLocale::system().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat);
}

}  // namespace weft::ui
