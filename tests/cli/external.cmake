weft_add_test(test_cli_external SOURCES test_cli_external.cpp LABELS cli LIBS nlohmann_json::nlohmann_json)
target_compile_definitions(test_cli_external PRIVATE WEFT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

# The C++ strategy example registers itself and is compared with the built-ins.
add_test(NAME example_critical_first COMMAND critical_first ${WEFT_TEST_DATA_DIR}/models/googlenet.onnx --graph)
set_tests_properties(example_critical_first PROPERTIES LABELS "cli" ENVIRONMENT "WEFT_ASSETS_DIR=${WEFT_ASSETS_DIR}"
  PASS_REGULAR_EXPRESSION "critical-first +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+x")
