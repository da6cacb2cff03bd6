weft_add_test(test_cli_layers SOURCES test_cli_layers.cpp LABELS cli LIBS nlohmann_json::nlohmann_json)
