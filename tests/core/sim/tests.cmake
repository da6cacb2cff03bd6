weft_add_test(test_simulator SOURCES sim/test_simulator.cpp LABELS core)
