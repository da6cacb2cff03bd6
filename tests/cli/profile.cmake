weft_add_test(test_cli_profile SOURCES test_cli_profile.cpp LABELS cli LIBS nlohmann_json::nlohmann_json)
