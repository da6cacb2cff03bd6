weft_add_test(test_cli_external SOURCES test_cli_external.cpp LABELS cli LIBS nlohmann_json::nlohmann_json)
target_compile_definitions(test_cli_external PRIVATE WEFT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
