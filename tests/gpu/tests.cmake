# GPU tests (label gpu). test_cuda_check runs everywhere (host-side checks, the no-device and
# no-CUDA paths); test_cuda_executor exits 77 (ctest: skipped) when no CUDA device is present.
weft_add_test(test_cuda_check SOURCES test_cuda_check.cpp LABELS gpu LIBS weft_gpu)
if(WEFT_HAVE_CUDNN AND TARGET CUDA::nvtx3)
  # A static NVTX injection counts the executor's ranges.
  weft_add_test(test_cuda_executor SOURCES nvtx_counter.cpp test_cuda_executor.cpp LABELS gpu LIBS weft_gpu CUDA::nvtx3)
  target_compile_definitions(test_cuda_executor PRIVATE WEFT_TEST_NVTX=1)
else()
  weft_add_test(test_cuda_executor SOURCES test_cuda_executor.cpp LABELS gpu LIBS weft_gpu)
endif()
