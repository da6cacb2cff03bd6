weft_add_test(test_cli_sweep SOURCES test_cli_sweep.cpp LABELS cli LIBS nlohmann_json::nlohmann_json)
