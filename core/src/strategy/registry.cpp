// The strategy registry: built-ins registered once, before anything reads or adds to it, then
// programs' own strategies, listed by rank.
#include "weft/core/strategy/registry.h"

#include <algorithm>
#include <mutex>

#include "strategy_detail.h"

namespace weft::core {
namespace {

class FunctionStrategy final : public Strategy {
 public:
  FunctionStrategy(std::string name, std::string description, int rank,
                   std::function<Expected<Schedule>(const StrategyInput&)> run, bool iterative)
      : m_name(std::move(name)), m_description(std::move(description)), m_rank(rank), m_iterative(iterative),
        m_run(std::move(run)) {}
  std::string name() const override { return m_name; }
  std::string description() const override { return m_description; }
  int rank() const override { return m_rank; }
  bool iterative() const override { return m_iterative; }
  Expected<Schedule> schedule(const StrategyInput& input) const override { return m_run(input); }

 private:
  std::string m_name, m_description;
  int m_rank;
  bool m_iterative;
  std::function<Expected<Schedule>(const StrategyInput&)> m_run;
};

// The registry. Built-ins are registered once, before anything else reads or adds to it, so a
// program's own strategy can never take a built-in's name.
struct Registry {
  std::mutex mutex;
  std::vector<std::shared_ptr<const Strategy>> strategies;  // by rank, then registration order
};

Registry& storage() {
  static Registry* r = new Registry;  // never destroyed: strategies may be looked up at exit
  return *r;
}

thread_local bool t_registering_builtins = false;

void ensure_builtins() {
  static std::once_flag once;
  if (t_registering_builtins) return;
  std::call_once(once, [] {
    t_registering_builtins = true;
    detail::register_builtin_strategies();
    t_registering_builtins = false;
  });
}

std::vector<std::shared_ptr<const Strategy>> all_strategies() {
  ensure_builtins();
  std::lock_guard lock(storage().mutex);
  return storage().strategies;
}



}  // namespace

std::shared_ptr<const Strategy> find_strategy(std::string_view name) {
  for (auto& s : all_strategies())
    if (s->name() == name) return s;
  return nullptr;
}

Status register_strategy(std::shared_ptr<const Strategy> strategy) {
  ensure_builtins();
  if (!strategy) return make_error(ErrorKind::InvalidInput, "register_strategy: no strategy");
  const std::string name = strategy->name();
  if (name.empty() || name.find_first_of(" \t\n") != std::string::npos)
    return make_error(ErrorKind::InvalidInput, "a strategy name must be one word, got '" + name + "'");
  std::lock_guard lock(storage().mutex);
  auto& list = storage().strategies;
  for (const auto& s : list)
    if (s->name() == name) return make_error(ErrorKind::InvalidInput, "strategy '" + name + "' is already registered");
  const int rank = strategy->rank();
  const auto at = std::find_if(list.begin(), list.end(), [&](const auto& s) { return s->rank() > rank; });
  list.insert(at, std::move(strategy));
  return {};
}

std::shared_ptr<const Strategy> make_strategy(std::string name, std::string description, int rank,
                                              std::function<Expected<Schedule>(const StrategyInput&)> run,
                                              bool iterative) {
  return std::make_shared<FunctionStrategy>(std::move(name), std::move(description), rank, std::move(run), iterative);
}

std::vector<StrategyInfo> strategy_list() {
  std::vector<StrategyInfo> out;
  for (const auto& s : all_strategies()) out.push_back({s->name(), s->description(), s->iterative()});
  return out;
}

std::vector<std::string> fixed_strategy_names() {
  std::vector<std::string> names;
  for (const auto& s : all_strategies())
    if (!s->iterative()) names.push_back(s->name());
  return names;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const auto& s : all_strategies()) names.push_back(s->name());
  return names;
}

}  // namespace weft::core
