weft_add_test(test_cli_schedule SOURCES test_cli_schedule.cpp LABELS cli LIBS nlohmann_json::nlohmann_json)
