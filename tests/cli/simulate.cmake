weft_add_test(test_cli_simulate SOURCES test_simulate.cpp LABELS cli LIBS nlohmann_json::nlohmann_json)
