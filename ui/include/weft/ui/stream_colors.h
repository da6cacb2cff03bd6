#pragma once
// One colour per stream, shared by the graph and lanes views.
#include <QColor>

namespace weft::ui {

inline QColor stream_color(int stream) {
  static const QColor kColors[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0x59, 0xa1, 0x4f),
                                   QColor(0xb0, 0x7a, 0xa1), QColor(0x76, 0xb7, 0xb2), QColor(0xed, 0xc9, 0x48),
                                   QColor(0x9c, 0x75, 0x5f), QColor(0xff, 0x9d, 0xa7)};
  if (stream < 0) return QColor(0x99, 0x99, 0x99);
  const QColor base = kColors[stream % 8];
  // Past eight streams, darken each round so neighbours stay distinguishable.
  return stream < 8 ? base : base.darker(100 + 25 * (stream / 8));
}

inline QColor critical_color() { return QColor(0xd6, 0x27, 0x28); }
inline QColor selection_color() { return QColor(0x1f, 0x6f, 0xff); }
/// Outline of a merged launch (horizontal merging) in the lanes and graph views.
inline QColor merged_color() { return QColor(0x8e, 0x44, 0xad); }

}  // namespace weft::ui
