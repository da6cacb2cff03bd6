weft_add_bench(bench_sim bench_sim.cpp)
