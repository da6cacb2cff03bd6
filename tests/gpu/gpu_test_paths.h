#pragma once
// What the GPU tests find beside them besides test_paths.h's data and weft: the start-up
// measuring helper and the models.
#include <string>

#include "test_paths.h"

namespace weft::test {

/// The start-up measuring helper (spawn_measure.cpp), built beside the tests.
inline std::string spawn_measure() { return env_or("WEFT_SPAWN_MEASURE", program_dir() + "/weft_spawn_measure"); }

inline std::string model_file(const std::string& name) { return test_data_dir() + "/models/" + name + ".onnx"; }

}  // namespace weft::test
