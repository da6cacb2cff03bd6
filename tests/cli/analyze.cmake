weft_add_test(test_cli_analyze SOURCES test_cli_analyze.cpp LABELS cli LIBS nlohmann_json::nlohmann_json)
