# GPU tests (label gpu). They reach the CUDA backend through the module loader, as the programs
# do, so they build without a CUDA toolkit. test_cuda_check and test_cuda_module run everywhere
# (host-side checks, the module's load errors, the no-device path); test_cuda_executor exits 77
# (ctest: skipped) when no CUDA device is present or the build has no CUDA module.
set(weft_nvtx_counter OFF)
if(TARGET CUDA::nvtx3)
  # An NVTX injection library counts the module's ranges (see nvtx_counter.cpp).
  set(weft_nvtx_counter ON)
  add_library(weft_nvtx_counter SHARED nvtx_counter.cpp)
  target_link_libraries(weft_nvtx_counter PRIVATE CUDA::nvtx3 weft_warnings ${CMAKE_DL_LIBS})
endif()
weft_add_test(test_cuda_check SOURCES test_cuda_check.cpp LABELS gpu LIBS weft_gpu)
weft_add_test(test_cuda_executor SOURCES test_cuda_executor.cpp LABELS gpu LIBS weft_gpu)
foreach(t test_cuda_check test_cuda_executor)
  target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/gpu/src)
  if(weft_nvtx_counter)
    # The tests call nvtx_counts(), so the library is loaded, and its constructor names it to NVTX.
    target_link_libraries(${t} PRIVATE weft_nvtx_counter)
    target_compile_definitions(${t} PRIVATE WEFT_TEST_NVTX=1)
  endif()
endforeach()

# Stand-in modules the loader must refuse: one needs a library no search path finds at run time
# (built into a folder of its own, and the stub gets no RUNPATH to it), one is from "another build".
add_library(weft_test_absent SHARED stub_absent_library.cpp)
set_target_properties(weft_test_absent PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/absent)
add_library(weft_stub_missing_library MODULE stub_module.cpp)
target_compile_definitions(weft_stub_missing_library PRIVATE WEFT_STUB_MISSING_LIBRARY=1)
target_link_libraries(weft_stub_missing_library PRIVATE weft_test_absent)
add_library(weft_stub_other_build MODULE stub_module.cpp)
foreach(t weft_stub_missing_library weft_stub_other_build)
  # Headers only: a stub links nothing of weft.
  target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/gpu/src ${PROJECT_SOURCE_DIR}/gpu/include
                                          $<TARGET_PROPERTY:weft_core,INTERFACE_INCLUDE_DIRECTORIES>)
  set_target_properties(${t} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/stubs
                                        SKIP_BUILD_RPATH ON INSTALL_RPATH "" CXX_VISIBILITY_PRESET hidden)
endforeach()

add_executable(weft_spawn_measure spawn_measure.cpp)
target_link_libraries(weft_spawn_measure PRIVATE weft_warnings)
weft_add_test(test_cuda_module SOURCES test_cuda_module.cpp LABELS "gpu;cli" LIBS weft_gpu)
add_dependencies(test_cuda_module weft weft_spawn_measure weft_stub_missing_library weft_stub_other_build)
if(WEFT_RELOCATABLE)
  # The bundle keeps the stubs in stubs/ beside the test (gpu_test_paths.h).
  target_compile_definitions(test_cuda_module PRIVATE WEFT_TEST_STUB_DIR="" WEFT_STUDIO_PATH="")
else()
  target_compile_definitions(test_cuda_module PRIVATE WEFT_TEST_STUB_DIR="${CMAKE_CURRENT_BINARY_DIR}/stubs"
                             WEFT_STUDIO_PATH="$<$<TARGET_EXISTS:weft-studio>:$<TARGET_FILE:weft-studio>>")
  if(TARGET weft-studio)
    add_dependencies(test_cuda_module weft-studio)
  endif()
endif()

# The GPU bundle's library closure, whenever scripts/gpu-bundle.sh has built it (skipped otherwise).
add_test(NAME gpu.bundle_closure COMMAND ${PROJECT_SOURCE_DIR}/scripts/gpu-bundle-closure.sh ${PROJECT_SOURCE_DIR}/build/gpu-bundle)
set_tests_properties(gpu.bundle_closure PROPERTIES LABELS "gpu" SKIP_RETURN_CODE 77)

# The one-shot GPU check without a GPU (tests/gpu/test_gpu_check.py): its plan fits the device
# time, its summariser marks invalid rows without losing the table, and a whole run here returns
# its files within the device tool's limits.
if(NOT WEFT_RELOCATABLE AND EXISTS /usr/bin/python3)
  foreach(part plan summary dry-run)
    add_test(NAME gpu.check_${part}
             COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_check.py ${part} ${PROJECT_SOURCE_DIR} $<TARGET_FILE:weft>)
    set_tests_properties(gpu.check_${part} PROPERTIES LABELS "gpu" ENVIRONMENT "WEFT_ASSETS_DIR=${WEFT_ASSETS_DIR}")
  endforeach()
endif()

# The CUDA executor's host-side checks and geometry, in every build (no CUDA needed).
weft_add_test(test_op_geometry SOURCES test_op_geometry.cpp LABELS "gpu;core" LIBS weft_gpu_geometry)
