#pragma once
// Seeded synthetic models (layered random DAGs of convolution-like operators) for demos,
// stress tests of the views and the "window never freezes" test.
#include <cstdint>

#include "weft/core/graph/graph.h"

namespace weft::ui {

/// A DAG of `nodes` operators in branches that fork and join, with static shapes. O(V).
core::Expected<core::Graph> make_synthetic_graph(int nodes, std::uint64_t seed = 1);

}  // namespace weft::ui
