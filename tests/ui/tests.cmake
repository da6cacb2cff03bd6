# Studio tests (Qt Test, offscreen): one executable each; QTEST_MAIN supplies main().
weft_add_test(test_studio_document SOURCES test_studio_document.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_lanes_view SOURCES test_lanes_view.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_main_window SOURCES test_main_window.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_timeline_view SOURCES test_timeline_view.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_run_menu SOURCES test_run_menu.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
