weft_add_test(test_golden_results SOURCES study/test_golden_results.cpp LABELS core LIBS nlohmann_json::nlohmann_json)
weft_add_test(test_memory_budget SOURCES study/test_memory_budget.cpp LABELS core)
weft_add_test(test_frontier SOURCES study/test_frontier.cpp LABELS core)
