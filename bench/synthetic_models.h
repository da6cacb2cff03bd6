#pragma once
// Seeded synthetic ONNX models for the scale benchmarks: layered random DAGs, transformer-like
// stacks (attention blocks with parallel Q/K/V branches per head), wide mixture-of-experts
// fan-outs, RandWire-style stages (Watts–Strogatz small-world graphs oriented by index), wide
// layered DAGs whose width grows with the model, random DAGs with long edges, and narrow chains
// with rare wide bursts, from about 1k to 300k operators. Written as ONNX files so the whole path, import included, is
// measured. Structure only, as the test models: initializers keep name, type and shape, their
// bytes are external in an absent file (nothing here reads weights). float32, opset 17.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace weft::bench {

enum class SyntheticFamily : std::uint8_t { Layered, Transformer, MoE, RandWire, Wide, LongRange, Bursty };

/// "layered", "transformer", "moe", "randwire", "wide", "longrange", "bursty".
std::string_view family_name(SyntheticFamily family);
/// Every family, in enum order.
std::vector<SyntheticFamily> synthetic_families();
/// The family named `name`; false when there is none.
bool parse_family(std::string_view name, SyntheticFamily& family);

struct SyntheticModel {
  std::string bytes;  ///< the serialised ONNX ModelProto
  int operators = 0;  ///< operators (nodes) it holds
};

/// The ONNX model of `family` with about `operators` operators (whole blocks are added
/// until the count is reached: within one block of it). Deterministic in (family, operators, seed).
///  - layered: layers of 8–56 operators (Add, Mul, Relu on [1, 256]) reading 1–2 operators of
///    the previous layer, sometimes one up to 4 layers back (the 100k-operator model).
///  - transformer: blocks of 8 heads, each head Q/K/V MatMuls from the block input (parallel),
///    Transpose, scores MatMul, scale, Softmax, context MatMul; Concat, projection, residual, a
///    feed-forward MatMul–Relu–MatMul and a residual ([64, 256]; 71 operators per block).
///  - moe: blocks of 64 experts fed by the block input (a 128-way fan-out): per expert a gate
///    (MatMul, Sigmoid) and an FFN (MatMul, Relu, MatMul), gated by Mul; one Sum of 64 inputs and
///    a residual Add (386 operators per block).
///  - randwire: stages of a Watts–Strogatz graph (64 nodes, 4 neighbours, rewiring 0.75) oriented
///    from lower to higher index; per graph node a Sum of its inputs (when more than one), Relu
///    and MatMul; the stage's sinks are summed into the next stage's input.
///  - wide (issue 45): layers of about √n/4 operators (±25%; about 80 at 100k), each operator
///    reading one or two tensors drawn from the last three layers (Add, Mul, Relu on [1, 256]).
///  - longrange: each operator reads 1–4 earlier tensors, three in four from the last 64
///    operators and one in four from anywhere before it (Relu, Add, Mul, Sum on [1, 256]).
///  - bursty: three chains of elementwise operators advancing in turn (one step in ten adds in
///    another chain), and after every 500–2500 chain operators a burst of 128–512 parallel
///    operators from one chain's head, reduced back by a balanced tree of Adds ([1, 256]).
/// O(operators) time and bytes.
SyntheticModel make_synthetic_model(SyntheticFamily family, int operators, std::uint64_t seed = 1);

/// Writes make_synthetic_model() to `path`; returns the operator count, or -1 (and a message in
/// `error`) when the file cannot be written.
int write_synthetic_model(const std::string& path, SyntheticFamily family, int operators, std::uint64_t seed,
                          std::string& error);

}  // namespace weft::bench
