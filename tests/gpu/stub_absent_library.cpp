// The library that the "missing library" stub module needs and that no search path finds.
extern "C" __attribute__((visibility("default"))) int weft_test_absent_function() { return -7; }
