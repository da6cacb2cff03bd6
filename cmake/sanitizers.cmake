# WEFT_SANITIZE instruments every target but the tests (tests/CMakeLists.txt takes the compile
# options off again); every program links the runtimes.
if(WEFT_SANITIZE)
  string(REPLACE ";" "," _weft_san "${WEFT_SANITIZE}")
  set(WEFT_SANITIZE_COMPILE_OPTIONS -fsanitize=${_weft_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_compile_options(${WEFT_SANITIZE_COMPILE_OPTIONS})
  add_link_options(-fsanitize=${_weft_san})
endif()
