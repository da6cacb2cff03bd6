# Studio tests (Qt Test, offscreen): one executable each; QTEST_MAIN supplies main().
weft_add_test(test_studio_document SOURCES test_studio_document.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_lanes_view SOURCES test_lanes_view.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_main_window SOURCES test_main_window.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_memory_view SOURCES test_memory_view.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_exports SOURCES test_exports.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test Qt6::Svg)
target_compile_definitions(test_exports PRIVATE WEFT_VERSION_FOR_TESTS="${PROJECT_VERSION}")
weft_add_test(test_timeline_view SOURCES test_timeline_view.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_run_menu SOURCES test_run_menu.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
