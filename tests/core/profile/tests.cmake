weft_add_test(test_profile SOURCES profile/test_profile.cpp LABELS core LIBS nlohmann_json::nlohmann_json)
