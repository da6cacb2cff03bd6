weft_add_test(test_cost_model SOURCES analysis/test_cost_model.cpp LABELS core)
weft_add_test(test_critical_path SOURCES analysis/test_critical_path.cpp LABELS core)
weft_add_test(test_antichain SOURCES analysis/test_antichain.cpp LABELS core)
weft_add_test(test_analyze SOURCES analysis/test_analyze.cpp LABELS core)
