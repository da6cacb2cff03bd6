weft_add_test(test_golden_results SOURCES study/test_golden_results.cpp LABELS core LIBS nlohmann_json::nlohmann_json)
