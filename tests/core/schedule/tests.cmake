weft_add_test(test_sync SOURCES schedule/test_sync.cpp LABELS core)
weft_add_test(test_strategies SOURCES schedule/test_strategies.cpp LABELS core)
weft_add_test(test_schedule_edit SOURCES schedule/test_schedule_edit.cpp LABELS core)
weft_add_test(test_schedule_json SOURCES schedule/test_schedule_json.cpp LABELS core)
