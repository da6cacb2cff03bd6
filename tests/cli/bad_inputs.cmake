weft_add_test(test_bad_inputs SOURCES test_bad_inputs.cpp LABELS cli LIBS nlohmann_json::nlohmann_json)
