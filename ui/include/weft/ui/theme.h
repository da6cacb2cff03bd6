#pragma once
// Light and dark palettes. By default the studio follows the system's colour scheme; View >
// Theme overrides it (the choice persists in the settings).
#include <QPalette>
#include <QString>

namespace weft::ui {

enum class Theme { System, Light, Dark };

QString theme_name(Theme theme);            ///< "system", "light", "dark"
Theme theme_from_name(const QString& name);  ///< unknown: System

/// True when the system asks for dark: QStyleHints::colorScheme() with Qt 6.5+, else the
/// lightness of the palette the application started with.
bool system_prefers_dark();
QPalette light_palette();
QPalette dark_palette();
/// Sets the application palette for `theme` (System: the palette the application started with,
/// or the dark one when the system prefers dark but the platform palette is light).
void apply_theme(Theme theme);
/// The theme applied last (System before any call).
Theme current_theme();
/// True when the palette `pal` is dark (window lightness below half).
bool is_dark(const QPalette& pal);

}  // namespace weft::ui
