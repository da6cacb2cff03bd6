weft_add_test(test_cli_run SOURCES test_cli_run.cpp LABELS cli LIBS nlohmann_json::nlohmann_json)
