weft_add_test(test_sweep SOURCES study/test_sweep.cpp LABELS core)
weft_add_test(test_advice SOURCES study/test_advice.cpp LABELS core)
