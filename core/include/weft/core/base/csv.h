#pragma once
// CSV fields and records as RFC 4180 writes them: the sweep, the frontier and the studio's per-node
// export write with csv_field; the sweep's merge reads back with split_csv_record.
#include <string>
#include <string_view>
#include <vector>

namespace weft::core {

/// `text` as one CSV field: unchanged unless it holds a comma, a quote or a line break, else
/// quoted with its quotes doubled. O(n).
std::string csv_field(std::string_view text);

/// One CSV record (a line without its line break) split into its fields, quotes removed and
/// doubled quotes undone. A record without commas is one field. O(n).
std::vector<std::string> split_csv_record(std::string_view line);

}  // namespace weft::core
