weft_add_test(test_memory_budget SOURCES study/test_memory_budget.cpp LABELS core)
weft_add_test(test_frontier SOURCES study/test_frontier.cpp LABELS core)
