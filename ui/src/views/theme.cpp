#include "weft/ui/theme.h"

#include <QApplication>
#include <QStyle>
#include <QStyleHints>

namespace weft::ui {

namespace {

Theme g_theme = Theme::System;

// The palette the application had before the studio changed it: the system's.
const QPalette& startup_palette() {
  static const QPalette pal = QApplication::palette();
  return pal;
}

}  // namespace

QString theme_name(Theme theme) {
  switch (theme) {
    case Theme::Light: return QStringLiteral("light");
    case Theme::Dark: return QStringLiteral("dark");
    case Theme::System: break;
  }
  return QStringLiteral("system");
}

Theme theme_from_name(const QString& name) {
  if (name == "light") return Theme::Light;
  if (name == "dark") return Theme::Dark;
  return Theme::System;
}

bool is_dark(const QPalette& pal) { return pal.color(QPalette::Window).lightness() < 128; }

bool system_prefers_dark() {
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
  const Qt::ColorScheme scheme = QGuiApplication::styleHints()->colorScheme();
  if (scheme != Qt::ColorScheme::Unknown) return scheme == Qt::ColorScheme::Dark;
#endif
  return is_dark(startup_palette());
}

QPalette light_palette() {
  QPalette p;
  p.setColor(QPalette::Window, QColor(0xef, 0xef, 0xef));
  p.setColor(QPalette::WindowText, QColor(0x1e, 0x1e, 0x1e));
  p.setColor(QPalette::Base, Qt::white);
  p.setColor(QPalette::AlternateBase, QColor(0xf4, 0xf6, 0xf8));
  p.setColor(QPalette::ToolTipBase, QColor(0xff, 0xff, 0xdc));
  p.setColor(QPalette::ToolTipText, Qt::black);
  p.setColor(QPalette::PlaceholderText, QColor(0x80, 0x80, 0x80));
  p.setColor(QPalette::Text, QColor(0x1e, 0x1e, 0x1e));
  p.setColor(QPalette::Button, QColor(0xef, 0xef, 0xef));
  p.setColor(QPalette::ButtonText, QColor(0x1e, 0x1e, 0x1e));
  p.setColor(QPalette::BrightText, Qt::red);
  p.setColor(QPalette::Highlight, QColor(0x30, 0x8c, 0xc6));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(0x1f, 0x6f, 0xff));
  p.setColor(QPalette::Disabled, QPalette::Text, QColor(0xa0, 0xa0, 0xa0));
  p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0xa0, 0xa0, 0xa0));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0xa0, 0xa0, 0xa0));
  return p;
}

QPalette dark_palette() {
  QPalette p;
  p.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2e));
  p.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
  p.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x20));
  p.setColor(QPalette::AlternateBase, QColor(0x26, 0x27, 0x2b));
  p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3a, 0x3e));
  p.setColor(QPalette::ToolTipText, QColor(0xe6, 0xe6, 0xe6));
  p.setColor(QPalette::PlaceholderText, QColor(0x8c, 0x8c, 0x90));
  p.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
  p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x38));
  p.setColor(QPalette::ButtonText, QColor(0xe6, 0xe6, 0xe6));
  p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
  p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xb5));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(0x6c, 0xa8, 0xff));
  p.setColor(QPalette::Light, QColor(0x50, 0x50, 0x54));
  p.setColor(QPalette::Midlight, QColor(0x40, 0x40, 0x44));
  p.setColor(QPalette::Mid, QColor(0x30, 0x30, 0x33));
  p.setColor(QPalette::Dark, QColor(0x18, 0x18, 0x1a));
  p.setColor(QPalette::Shadow, Qt::black);
  p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x78, 0x78, 0x7c));
  p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x78, 0x78, 0x7c));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x78, 0x78, 0x7c));
  return p;
}

void apply_theme(Theme theme) {
  const QPalette& system = startup_palette();
  g_theme = theme;
  QPalette pal;
  switch (theme) {
    case Theme::Light: pal = light_palette(); break;
    case Theme::Dark: pal = dark_palette(); break;
    case Theme::System: {
      // The platform palette when it matches the scheme; ours where it does not (a dark scheme
      // reported with a light platform palette, or the scheme changed since start-up).
      const bool dark = system_prefers_dark();
      pal = dark == is_dark(system) ? system : dark ? dark_palette() : light_palette();
      break;
    }
  }
  QApplication::setPalette(pal);
}

Theme current_theme() { return g_theme; }

}  // namespace weft::ui
