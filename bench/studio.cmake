# The studio's per-edit work needs weft_ui (its synthetic models and memory view model); the
# paint benchmark drives its views offscreen.
if(TARGET weft_ui)
  weft_add_bench(bench_studio bench_studio.cpp)
  target_link_libraries(bench_studio PRIVATE weft_ui)
  weft_add_bench(bench_paint bench_paint.cpp)
  target_link_libraries(bench_paint PRIVATE weft_ui weft_synthetic)
endif()
