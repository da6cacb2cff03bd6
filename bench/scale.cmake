# Scale: the synthetic ONNX models (layered, transformer, MoE, RandWire, wide, long-range,
# bursty) and the benchmarks on them: every pass of the pipeline from import to prediction, and
# one edit's re-planning.
add_library(weft_synthetic STATIC synthetic_models.cpp)
target_link_libraries(weft_synthetic PRIVATE weft_warnings onnx_proto protobuf::libprotobuf)
add_executable(weft-synth weft_synth.cpp)
target_link_libraries(weft-synth PRIVATE weft_synthetic weft_warnings)
weft_add_bench(bench_pipeline bench_pipeline.cpp)
target_link_libraries(bench_pipeline PRIVATE weft_synthetic)
weft_add_bench(bench_edit bench_edit.cpp)
target_link_libraries(bench_edit PRIVATE weft_synthetic)
