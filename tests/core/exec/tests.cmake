weft_add_test(test_cpu_kernels SOURCES exec/test_cpu_kernels.cpp LABELS core)
