# One warnings target that every Weft target links.
add_library(weft_warnings INTERFACE)
target_compile_options(weft_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wcast-align -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${WEFT_WERROR}>>:-Werror>)
