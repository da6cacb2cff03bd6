#include "weft/ui/preferences.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QMainWindow>
#include <QMenu>
#include <QSettings>
#include <QStyleHints>
#include <QtGlobal>

#include "weft/core/cost/device.h"
#include "weft/ui/studio_document.h"

namespace weft::ui {

Preferences::Preferences(QMainWindow* window) : QObject(window), m_window(window) {
  QSettings settings;
  m_device_preset = settings.value("device").toString();
  m_theme = theme_from_name(settings.value("view/theme").toString());
  m_open_as_advised = settings.value("open/advised", true).toBool();
  if (m_theme != Theme::System || system_prefers_dark() != is_dark(QApplication::palette())) apply_theme(m_theme);
}

void Preferences::createMenus(QMenu* edit, QMenu* view) {
  QMenu* devices = edit->addMenu(tr("&Device preset"));
  auto* device_group = new QActionGroup(devices);
  const QString current = m_device_preset.isEmpty() ? QString::fromStdString(std::string(core::default_device_name()))
                                                    : m_device_preset;
  for (const std::string& name : core::device_names()) {
    QAction* a = devices->addAction(QString::fromStdString(name));
    a->setCheckable(true);
    a->setChecked(a->text() == current);
    a->setData("device:" + a->text());
    device_group->addAction(a);
    connect(a, &QAction::triggered, this, [this, a] { setDevicePreset(a->text()); });
  }
  QAction* advised = edit->addAction(tr("Open models as &advised"));
  advised->setCheckable(true);
  advised->setChecked(m_open_as_advised);
  advised->setObjectName("openAsAdvised");
  advised->setToolTip(tr("Open each model on the strategy and launch mode its advice names "
                         "(up to %1 operators); off: on the strategy panel's settings").arg(kAdviceNodes));
  connect(advised, &QAction::toggled, this, &Preferences::setOpenAsAdvised);
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
  // Follow the system live when it switches between light and dark.
  connect(QGuiApplication::styleHints(), &QStyleHints::colorSchemeChanged, this, [this] {
    if (m_theme == Theme::System) apply_theme(Theme::System);
  });
#endif
  QMenu* themes = view->addMenu(tr("&Theme"));
  auto* theme_group = new QActionGroup(themes);
  for (auto [theme, label] : {std::pair{Theme::System, tr("Follow the &system")}, std::pair{Theme::Light, tr("&Light")},
                              std::pair{Theme::Dark, tr("&Dark")}}) {
    QAction* a = themes->addAction(label);
    a->setCheckable(true);
    a->setChecked(theme == m_theme);
    a->setData("theme:" + theme_name(theme));
    theme_group->addAction(a);
    connect(a, &QAction::triggered, this, [this, theme] { setTheme(theme); });
  }
}

void Preferences::setDevicePreset(const QString& name) {
  if (name == m_device_preset) return;
  m_device_preset = name;
  QSettings().setValue("device", name);
  for (QAction* a : m_window->findChildren<QAction*>())
    if (a->isCheckable() && a->data().toString() == "device:" + name) a->setChecked(true);
  emit devicePresetChanged(name);
}

void Preferences::setOpenAsAdvised(bool on) {
  if (on == m_open_as_advised) return;
  m_open_as_advised = on;
  QSettings().setValue("open/advised", on);
  if (auto* a = m_window->findChild<QAction*>("openAsAdvised")) a->setChecked(on);
}

void Preferences::setTheme(Theme theme) {
  m_theme = theme;
  QSettings().setValue("view/theme", theme_name(theme));
  apply_theme(theme);
  for (QAction* a : m_window->findChildren<QAction*>())
    if (a->isCheckable() && a->data().toString() == "theme:" + theme_name(theme)) a->setChecked(true);
}

}  // namespace weft::ui
