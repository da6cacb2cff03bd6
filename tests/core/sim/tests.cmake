weft_add_test(test_simulator SOURCES sim/test_simulator.cpp LABELS core)
weft_add_test(test_chrome_trace SOURCES sim/test_chrome_trace.cpp LABELS core LIBS nlohmann_json::nlohmann_json)
weft_add_test(test_timeline_json SOURCES sim/test_timeline_json.cpp LABELS core)
weft_add_test(test_cpu_device SOURCES sim/test_cpu_device.cpp LABELS core)
