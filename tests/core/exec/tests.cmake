weft_add_test(test_cpu_kernels SOURCES exec/test_cpu_kernels.cpp LABELS core)
weft_add_test(test_library_kernels SOURCES exec/test_library_kernels.cpp LABELS core)
weft_add_test(test_conformance SOURCES exec/test_conformance.cpp LABELS core)
# Relative to the test program, so that the object is the same in every build folder.
target_compile_definitions(test_conformance PRIVATE
  WEFT_CONFORMANCE_BUILD_DIR="$<PATH:RELATIVE_PATH,${CMAKE_BINARY_DIR}/onnx-conformance,$<TARGET_FILE_DIR:test_conformance>>"
  WEFT_OPERATORS_DOC="${PROJECT_SOURCE_DIR}/docs/operators.md")
weft_add_test(test_cpu_executor SOURCES exec/test_cpu_executor.cpp LABELS core)
# DataSizedOutputsPastMemoryFailTheRun: an allocation no memory holds makes operator new throw
# under the sanitizers too (their allocators otherwise stop the process).
set_property(TEST test_cpu_executor APPEND PROPERTY ENVIRONMENT
  "ASAN_OPTIONS=allocator_may_return_null=1" "TSAN_OPTIONS=allocator_may_return_null=1")
weft_add_test(test_initial_values SOURCES exec/test_initial_values.cpp LABELS core)
weft_add_test(test_compare_outputs SOURCES exec/test_compare_outputs.cpp LABELS core)
weft_add_test(test_control_flow SOURCES exec/test_control_flow.cpp LABELS core)
weft_add_test(test_tensor_files SOURCES exec/test_tensor_files.cpp LABELS core)
weft_add_test(test_given_inputs SOURCES exec/test_given_inputs.cpp LABELS core)
