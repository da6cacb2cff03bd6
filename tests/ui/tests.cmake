# Studio tests (Qt Test, offscreen): one executable each; QTEST_MAIN supplies main().
weft_add_test(test_studio_document SOURCES test_studio_document.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_graph_view SOURCES test_graph_view.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_profile_studio SOURCES test_profile_studio.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_lanes_view SOURCES test_lanes_view.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_main_window SOURCES test_main_window.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_memory_view SOURCES test_memory_view.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_exports SOURCES test_exports.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test Qt6::Svg)
target_compile_definitions(test_exports PRIVATE WEFT_VERSION_FOR_TESTS="${PROJECT_VERSION}")
weft_add_test(test_timeline_view SOURCES test_timeline_view.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_run_menu SOURCES test_run_menu.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_bad_inputs_studio SOURCES test_bad_inputs_studio.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_recovery SOURCES test_recovery.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_study_consistency SOURCES test_study_consistency.cpp ui_test_support.h LABELS ui cli slow LIBS weft_ui Qt6::Test nlohmann_json::nlohmann_json)
weft_add_test(test_strategy_panel SOURCES test_strategy_panel.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_frontier_view SOURCES test_frontier_view.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_split_studio SOURCES test_split_studio.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
weft_add_test(test_dims_and_merges SOURCES test_dims_and_merges.cpp ui_test_support.h LABELS ui LIBS weft_ui Qt6::Test)
# The three front ends open the same files alike (core::open_model); the Python half needs the module.
if(TARGET weft_python)
  weft_add_test(test_open_consistency SOURCES test_open_consistency.cpp ui_test_support.h LABELS "ui;cli;python"
                LIBS weft_ui Qt6::Test nlohmann_json::nlohmann_json)
  target_compile_definitions(test_open_consistency PRIVATE WEFT_PYTHON_DIR="${WEFT_PYTHON_DIR}"
                             WEFT_PYTHON_EXECUTABLE="${WEFT_PYTHON_EXECUTABLE}")
  add_dependencies(test_open_consistency weft_python)
  set_tests_properties(test_open_consistency PROPERTIES ENVIRONMENT
    "WEFT_ASSETS_DIR=${WEFT_ASSETS_DIR};QT_QPA_PLATFORM=offscreen;WEFT_TEST_DATA_DIR=${WEFT_TEST_DATA_DIR}")
endif()
