// libweft.so is weft_core linked whole (core/CMakeLists.txt); this file gives the target a source
// and the library a way to say which version it is at run time.
#include "weft/build_info.h"

namespace weft::build {

const char* library_version() { return WEFT_VERSION_STRING; }

}  // namespace weft::build
