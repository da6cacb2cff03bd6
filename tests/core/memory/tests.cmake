weft_add_test(test_memory_liveness SOURCES memory/test_liveness.cpp LABELS core)
weft_add_test(test_memory_planners SOURCES memory/test_planners.cpp LABELS core)
weft_add_test(test_memory_bounds SOURCES memory/test_bounds.cpp LABELS core)
weft_add_test(test_memory_intervals SOURCES memory/test_intervals.cpp LABELS core)
weft_add_test(test_memory_growth SOURCES memory/test_growth.cpp LABELS core)
weft_add_test(test_memory_exact SOURCES memory/test_exact.cpp LABELS core)
weft_add_test(test_memory_exact_slow SOURCES memory/test_exact_slow.cpp LABELS core slow)
# Every MiniMalloc instance against the 1.10 goal at the default budget: runs in the ci preset,
# labelled slow so the sanitizer presets skip it (minutes under ASan/TSan).
weft_add_test(test_minimalloc_goal SOURCES memory/test_minimalloc_goal.cpp LABELS core slow)
weft_add_test(test_memory_dense_liveness SOURCES memory/test_dense_liveness.cpp LABELS core)
weft_add_test(test_memory_stream_sweep SOURCES memory/test_stream_sweep.cpp LABELS core)
weft_add_test(test_memory_plan_repair SOURCES memory/test_plan_repair.cpp LABELS core)
