// libweft_blas.so, for relocatable builds (the GPU bundle): OpenBLAS's static archive linked once
// into a shared library that weft and the tests share, instead of twice into the programs (its
// kernels for every CPU type weigh about 25 MB) or as Debian's libopenblas.so (36 MB, plus
// libgfortran). Taking the addresses of the functions weft_core calls pulls them, and only the
// archive members they need, into the library; their symbols stay exported.
#include <cblas.h>

extern "C" __attribute__((visibility("default"), used)) void* const weft_blas_entry_points[] = {
    reinterpret_cast<void*>(&cblas_sgemm), reinterpret_cast<void*>(&cblas_dgemm),
    reinterpret_cast<void*>(&openblas_set_num_threads)};
