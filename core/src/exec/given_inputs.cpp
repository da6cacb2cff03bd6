// Given inputs matched to a graph's inputs: by name first, by position where the name says
// nothing (ONNX test data's input_N.pb, np.savez's arr_N), as ONNX Runtime's test runner does.
#include "weft/core/exec/given_inputs.h"

#include <utility>

namespace weft::core {
namespace {

std::string expected_text(const Tensor& t) { return std::string(dtype_name(t.dtype)) + " " + format_shape(t); }

std::string input_list(const Graph& graph) {
  std::string s;
  for (TensorId t : graph.inputs()) s += (s.empty() ? "" : ", ") + graph.tensor(t).name;
  return s.empty() ? "none" : s;
}

// Which given tensor feeds each graph input (-1: none), and the tensors left over.
struct Assignment {
  std::vector<int> file_of;            ///< per graph input
  std::vector<int> unmatched;          ///< given tensors that feed nothing
  std::vector<std::string> warnings;
};

Expected<Assignment> assign(const Graph& graph, const TensorFiles& given) {
  const auto inputs = graph.inputs();
  Assignment a;
  a.file_of.assign(inputs.size(), -1);
  std::map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < inputs.size(); ++i) index_of.emplace(graph.tensor(inputs[i]).name, i);
  std::vector<bool> used(given.tensors.size(), false);
  for (std::size_t f = 0; f < given.tensors.size(); ++f) {
    const TensorFile& file = given.tensors[f];
    const auto it = file.name.empty() ? index_of.end() : index_of.find(file.name);
    if (it == index_of.end()) continue;
    if (const int other = a.file_of[it->second]; other >= 0)
      return make_error(ErrorKind::InvalidInput, "input '" + file.name + "' is given twice: " +
                                                     given.tensors[static_cast<std::size_t>(other)].source + " and " + file.source);
    a.file_of[it->second] = static_cast<int>(f);
    used[f] = true;
  }
  for (std::size_t f = 0; f < given.tensors.size(); ++f) {
    const TensorFile& file = given.tensors[f];
    if (used[f] || file.position < 0 || static_cast<std::size_t>(file.position) >= inputs.size() ||
        a.file_of[static_cast<std::size_t>(file.position)] >= 0)
      continue;
    a.file_of[static_cast<std::size_t>(file.position)] = static_cast<int>(f);
    used[f] = true;
    // np.savez's arr_N names nothing: only a name the user gave is worth a word.
    if (!file.name.empty() && !(given.format == TensorFormat::Npz && file.name == "arr_" + std::to_string(file.position)))
      a.warnings.push_back(file.source + " names '" + file.name + "', which is no input of the model: it feeds input '" +
                           graph.tensor(inputs[static_cast<std::size_t>(file.position)]).name + "' by its position");
  }
  for (std::size_t f = 0; f < given.tensors.size(); ++f)
    if (!used[f]) a.unmatched.push_back(static_cast<int>(f));
  return a;
}

}  // namespace

Expected<GivenInputs> match_inputs(const Graph& graph, const TensorFiles& given) {
  WEFT_TRY_ASSIGN(Assignment a, assign(graph, given));
  const auto inputs = graph.inputs();
  GivenInputs out;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = graph.tensor(inputs[i]);
    if (a.file_of[i] < 0) {
      // The tensors that fed nothing are most likely meant for it: name them.
      std::string unknown;
      for (int f : a.unmatched) {
        const TensorFile& file = given.tensors[static_cast<std::size_t>(f)];
        unknown += (unknown.empty() ? "" : ", ") + (file.name.empty() ? std::string("an unnamed tensor") : "'" + file.name + "'") +
                   " (" + file.source + ")";
      }
      return make_error(ErrorKind::InvalidInput,
                        "no value for input '" + t.name + "' (" + expected_text(t) + ") in " + given.path +
                            (unknown.empty() ? std::string()
                                             : "; given " + unknown + ", which names no input of the model (its inputs: " +
                                                   input_list(graph) + ")"));
    }
    const TensorFile& file = given.tensors[static_cast<std::size_t>(a.file_of[i])];
    const HostTensor& v = file.value;
    const std::string given_text = tensor_type_text(v.dtype, v.shape);
    if (v.dtype != t.dtype)
      return make_error(ErrorKind::InvalidInput, "input '" + t.name + "' (" + file.source + "): given " + given_text +
                                                     ", the model expects " + expected_text(t) + " (wrong dtype)");
    bool fits = !t.rank_known || t.dims.size() == v.shape.size();
    for (std::size_t d = 0; fits && t.rank_known && d < t.dims.size(); ++d)
      if (t.dims[d].known() && t.dims[d].value != v.shape[d]) fits = false;
    if (!fits)
      return make_error(ErrorKind::InvalidInput, "input '" + t.name + "' (" + file.source + "): given " + given_text +
                                                     ", the model expects " + expected_text(t) + " (wrong shape)");
    out.values.emplace(t.name, v);
  }
  out.warnings = std::move(a.warnings);
  for (int f : a.unmatched) {
    const TensorFile& file = given.tensors[static_cast<std::size_t>(f)];
    out.warnings.push_back("ignored " + (file.name.empty() ? std::string("an unnamed tensor") : "'" + file.name + "'") + " (" +
                           file.source + "): every input of the model has its value");
  }
  return out;
}

Expected<std::map<std::string, std::int64_t>> dims_from_inputs(const Graph& graph, const TensorFiles& given,
                                                               const std::map<std::string, std::int64_t>& bound) {
  WEFT_TRY_ASSIGN(const Assignment a, assign(graph, given));
  const auto inputs = graph.inputs();
  std::map<std::string, std::int64_t> dims;
  std::map<std::string, std::string> where;  // key -> the input and file that bound it
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (a.file_of[i] < 0) continue;
    const Tensor& t = graph.tensor(inputs[i]);
    const TensorFile& file = given.tensors[static_cast<std::size_t>(a.file_of[i])];
    if (!t.rank_known || t.dims.size() != file.value.shape.size()) continue;
    for (std::size_t d = 0; d < t.dims.size(); ++d) {
      if (t.dims[d].known()) continue;
      const std::string key = t.dims[d].symbol.empty() ? t.name + ":" + std::to_string(d) : t.dims[d].symbol;
      if (bound.count(key)) continue;
      const std::int64_t value = file.value.shape[d];
      const std::string here = "input '" + t.name + "' (" + file.source + ")";
      if (auto [it, fresh] = dims.emplace(key, value); !fresh && it->second != value)
        return make_error(ErrorKind::InvalidInput, "dimension '" + key + "' is " + std::to_string(it->second) + " in " + where[key] +
                                                       " but " + std::to_string(value) + " in " + here);
      where.emplace(key, here);
    }
  }
  return dims;
}

}  // namespace weft::core
