weft_add_test(test_cli_split SOURCES test_cli_split.cpp LABELS cli LIBS nlohmann_json::nlohmann_json)
