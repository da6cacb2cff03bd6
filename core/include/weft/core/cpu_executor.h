#pragma once
// The CPU reference executor: reference kernels, one thread per stream, the planned arena.
#include <memory>
#include <string>
#include <vector>

#include "weft/core/executor.h"

namespace weft::core {

std::unique_ptr<Executor> make_cpu_executor();

/// Operators the CPU executor supports (sorted).
std::vector<std::string> cpu_supported_ops();

}  // namespace weft::core
