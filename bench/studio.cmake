# The studio's per-edit work needs weft_ui (its synthetic models and memory view model).
if(TARGET weft_ui)
  weft_add_bench(bench_studio bench_studio.cpp)
  target_link_libraries(bench_studio PRIVATE weft_ui)
endif()
