#pragma once
// A run's outputs against expected values (ONNX test data, another runtime's outputs): the
// largest absolute and relative errors per output and whether they are within tolerance.
#include <cstdint>
#include <string>
#include <vector>

#include "weft/core/exec/executor.h"
#include "weft/core/graph/graph.h"
#include "weft/core/exec/tensor_files.h"

namespace weft::core {

/// numpy.testing.assert_allclose's test, |got − expected| <= atol + rtol·|expected| for every
/// element, with the ONNX backend tests' defaults (onnx.backend.test: rtol 1e-3, atol 1e-7).
/// Integer and bool outputs must be equal whatever the tolerance.
struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
};

/// One output against its expected value.
struct OutputCheck {
  std::string name;      ///< the graph output
  std::string expected;  ///< where the expected value came from (file)
  /// Why it could not be compared element by element (missing from the run, another dtype or
  /// shape); empty when it was.
  std::string problem;
  double max_abs_error = 0;  ///< max |got − expected| (NaN where NaN is on one side only)
  /// max |got − expected| / |expected| over the elements whose expected value is not zero (0 when
  /// every expected element is zero; NaN as above): numpy's relative error, which an element near
  /// zero makes large whatever the precision.
  double max_rel_error = 0;
  /// max |got − expected| / max |expected|: the largest error relative to the output's scale,
  /// the precision the output was computed to (float32 noise is ~1e-7..1e-6; NaN as above).
  double max_scaled_error = 0;
  std::int64_t elements = 0;
  std::int64_t mismatched = 0;  ///< elements outside the tolerance
  bool passed = false;
};

/// Checks every graph output of `graph` that `expected` holds (matched by name, else by position
/// among the graph's outputs, as match_inputs matches inputs) against `got`, one OutputCheck per
/// expected tensor, in `expected`'s order. NaN agrees with NaN; a tensor that matches no output
/// fails with that problem. O(output elements).
std::vector<OutputCheck> check_outputs(const Graph& graph, const RunResult& got, const TensorFiles& expected,
                                       const Tolerance& tolerance);

/// True when every check passed (and there is at least one).
bool all_passed(const std::vector<OutputCheck>& checks);

}  // namespace weft::core
