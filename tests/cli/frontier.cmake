weft_add_test(test_cli_frontier SOURCES test_cli_frontier.cpp LABELS cli LIBS nlohmann_json::nlohmann_json)
