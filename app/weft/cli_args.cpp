#include <algorithm>
#include <charconv>
#include <cstdio>

#include "cli.h"
#include "weft/core/study/cpu_calibration.h"

namespace weft::cli {

std::optional<std::vector<std::string>> Args::take_after(std::string_view flag) {
  const auto it = std::find(m_argv.begin(), m_argv.end(), flag);
  if (it == m_argv.end()) return std::nullopt;
  std::vector<std::string> rest(it + 1, m_argv.end());
  m_argv.erase(it, m_argv.end());
  return rest;
}

core::Status Args::parse(std::initializer_list<std::string_view> known_options, bool model_options) {
  // The model options every MODEL-taking command accepts: --dim N=V (repeatable), --no-fold, --device D.
  std::vector<std::string_view> known(known_options);
  if (model_options) known.insert(known.end(), {"dim=", "no-fold", "device=", "batch="});
  // Every command that takes --strategy takes the search strategy's options and --split too.
  if (std::find(known.begin(), known.end(), "strategy=") != known.end())
    known.insert(known.end(), {"budget-ms=", "search-evals=", "search-seed=", "split="});
  auto find = [&](std::string_view name) -> std::optional<bool> {  // value-taking?
    for (std::string_view k : known) {
      if (!k.empty() && k.back() == '=' && k.substr(0, k.size() - 1) == name) return true;
      if (k == name) return false;
    }
    return std::nullopt;
  };
  for (std::size_t i = 0; i < m_argv.size(); ++i) {
    const std::string& a = m_argv[i];
    if (a.size() < 2 || a[0] != '-' || a == "-") {
      m_positional.push_back(a);
      continue;
    }
    std::string name = a.substr(a[1] == '-' ? 2 : 1);
    std::optional<std::string> inline_value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name.resize(eq);
    }
    const auto takes = find(name);
    if (!takes) return core::make_error(core::ErrorKind::Usage, "unknown option '" + a + "'");
    if (*takes) {
      if (inline_value) {
        m_values.emplace(name, *inline_value);
      } else {
        if (i + 1 >= m_argv.size()) return core::make_error(core::ErrorKind::Usage, "option '--" + name + "' needs a value");
        m_values.emplace(name, m_argv[++i]);
      }
    } else {
      if (inline_value) return core::make_error(core::ErrorKind::Usage, "option '--" + name + "' takes no value");
      m_values.emplace(name, "");
    }
  }
  return {};
}

bool Args::flag(std::string_view name) const { return m_values.find(name) != m_values.end(); }

std::optional<std::string> Args::value(std::string_view name) const {
  auto range = m_values.equal_range(name);
  if (range.first == range.second) return std::nullopt;
  return std::prev(range.second)->second;  // the last one given wins
}

std::vector<std::string> Args::values(std::string_view name) const {
  std::vector<std::string> out;
  auto range = m_values.equal_range(name);
  for (auto it = range.first; it != range.second; ++it) out.push_back(it->second);
  return out;
}

core::Expected<std::optional<std::int64_t>> Args::int_value(std::string_view name) const {
  auto v = value(name);
  if (!v) return std::optional<std::int64_t>{};
  std::int64_t x = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
  if (ec != std::errc() || p != v->data() + v->size())
    return core::make_error(core::ErrorKind::Usage, "option '--" + std::string(name) + "' needs an integer, got '" + *v + "'");
  return std::optional<std::int64_t>{x};
}

core::Expected<std::optional<double>> Args::double_value(std::string_view name) const {
  auto v = value(name);
  if (!v) return std::optional<double>{};
  try {
    std::size_t used = 0;
    const double x = std::stod(*v, &used);
    if (used == v->size()) return std::optional<double>{x};
  } catch (const std::exception&) {
  }
  return core::make_error(core::ErrorKind::Usage, "option '--" + std::string(name) + "' needs a number, got '" + *v + "'");
}

}  // namespace weft::cli

namespace weft::cli {

core::Expected<int> cpu_threads_option(const Args& args, std::string_view command) {
  auto threads = args.int_value("threads-per-stream");
  if (!threads) return threads.error();
  if (!*threads) return 1;
  if (**threads < 1 || **threads > 4096)
    return core::make_error(core::ErrorKind::InvalidInput, std::string(command) + ": --threads-per-stream must be 1 or more");
  if (auto ok = core::check_threads_per_stream(static_cast<int>(**threads)); !ok)
    return core::make_error(core::ErrorKind::InvalidInput, "--threads-per-stream: " + ok.error().message);
  return static_cast<int>(**threads);
}

}  // namespace weft::cli
