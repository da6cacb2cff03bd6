weft_add_test(test_cli_plan SOURCES test_plan.cpp LABELS cli LIBS nlohmann_json::nlohmann_json)
