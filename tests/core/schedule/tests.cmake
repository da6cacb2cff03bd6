weft_add_test(test_sync SOURCES schedule/test_sync.cpp LABELS core)
