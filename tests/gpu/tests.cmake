# GPU tests (label gpu). test_cuda_check runs everywhere (host-side checks, the no-device and
# no-CUDA paths); test_cuda_executor exits 77 (ctest: skipped) when no CUDA device is present.
weft_add_test(test_cuda_check SOURCES test_cuda_check.cpp LABELS gpu LIBS weft_gpu)
weft_add_test(test_cuda_executor SOURCES test_cuda_executor.cpp LABELS gpu LIBS weft_gpu)
