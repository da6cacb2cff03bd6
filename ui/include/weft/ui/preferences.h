#pragma once
// Preferences kept in QSettings and their menus: the device preset (Edit ▸ Device preset) and
// the theme (View ▸ Theme).
#include <QObject>
#include <QString>

#include "weft/ui/theme.h"

class QMainWindow;
class QMenu;

namespace weft::ui {

class Preferences : public QObject {
  Q_OBJECT
 public:
  /// Reads the settings and applies the stored theme.
  explicit Preferences(QMainWindow* window);

  void createMenus(QMenu* edit, QMenu* view);
  /// The device preset used for the next load (empty: the default preset).
  const QString& devicePreset() const { return m_device_preset; }
  /// Chooses and stores the preset; emits devicePresetChanged when it changed.
  void setDevicePreset(const QString& name);
  Theme theme() const { return m_theme; }
  void setTheme(Theme theme);
  /// Edit > Open models as advised (on by default): a model opens on the configuration its advice
  /// names (LoadRequest::follow_advice) rather than the strategy panel's.
  bool openAsAdvised() const { return m_open_as_advised; }
  void setOpenAsAdvised(bool on);

 signals:
  void devicePresetChanged(const QString& name);

 private:
  QMainWindow* m_window;
  QString m_device_preset;
  Theme m_theme = Theme::System;
  bool m_open_as_advised = true;
};

}  // namespace weft::ui
