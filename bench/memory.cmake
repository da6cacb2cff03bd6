weft_add_bench(bench_memory bench_memory.cpp)
