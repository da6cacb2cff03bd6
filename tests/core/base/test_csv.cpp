// CSV fields are quoted only where RFC 4180 needs it, and a record splits back into the fields
// that were written, quotes, commas and empty fields included.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "weft/core/base/csv.h"

using weft::core::csv_field;
using weft::core::split_csv_record;

TEST(Csv, QuotesOnlyWhereNeeded) {
  EXPECT_EQ(csv_field("conv_1"), "conv_1");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");
}

TEST(Csv, RecordSplitsBackIntoItsFields) {
  const std::vector<std::string> fields{"plain", "", "with,comma", "\"quoted\"", "a \"\" b", ",", ""};
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + csv_field(fields[i]);
  EXPECT_EQ(split_csv_record(line), fields);
  EXPECT_EQ(split_csv_record("one"), std::vector<std::string>{"one"});
  EXPECT_EQ(split_csv_record(""), std::vector<std::string>{""});
  EXPECT_EQ(split_csv_record("a,,b"), (std::vector<std::string>{"a", "", "b"}));
}
