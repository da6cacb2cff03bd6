# CPack: `cpack -G DEB` in the build folder makes weft_<version>_amd64.deb (programs, libraries,
# headers, Python module, assets, docs, desktop entry, icon, MIME types) and, where the CUDA module
# was built, weft-cuda_<version>_amd64.deb (the module alone). The main package's dependencies
# come from dpkg-shlibdeps; the module's libraries (cuBLAS, cuDNN) come from NVIDIA's
# installation, which no Debian package provides, so that package depends on weft alone.
set(CPACK_PACKAGE_NAME weft)
set(CPACK_PACKAGE_VENDOR "Weft")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "Weft maintainers <maintainers@weft.invalid>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/package)
set(CPACK_GENERATOR DEB)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL weft)
if(TARGET weft_cuda)
  list(APPEND CPACK_COMPONENTS_ALL cuda)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

set(CPACK_DEBIAN_WEFT_PACKAGE_NAME weft)
set(CPACK_DEBIAN_WEFT_PACKAGE_SHLIBDEPS ON)
# weft loads cairo (dlopen) when it draws a chart, so dpkg-shlibdeps cannot see it: named here
# (CPack adds the libraries dpkg-shlibdeps finds to this list).
set(CPACK_DEBIAN_WEFT_PACKAGE_DEPENDS "libcairo2")
# A shlibs file for libweft.so and libweft_gpu.so: dpkg-shlibdeps resolves the package's own
# libraries from it, and packages built against them depend on this one.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
# Each package's first description line is its summary (no CPACK_PACKAGE_DESCRIPTION_SUMMARY:
# CPack would put that one line above both); CPack indents the rest.
set(CPACK_DEBIAN_WEFT_DESCRIPTION
"parallel schedules of neural-network graphs
Weft opens ONNX models and answers how much of a model can run concurrently on one
GPU, at what memory cost: parallelism analysis, stream schedules with minimal events,
memory plans, a multi-stream simulator, a CPU executor and exports.

This package holds the weft command-line tool, the weft-studio desktop application,
libweft.so with its headers and CMake package (find_package(Weft)), and the Python
module weft.")
if(TARGET weft_python)
  # The module is built for this Python (major.minor) and imports numpy for its arrays.
  string(REPLACE "." ";" _weft_py "${WEFT_PYTHON_VERSION}")
  list(GET _weft_py 0 _weft_py_major)
  list(GET _weft_py 1 _weft_py_minor)
  math(EXPR _weft_py_next "${_weft_py_minor} + 1")
  set(CPACK_DEBIAN_WEFT_PACKAGE_RECOMMENDS
      "python3 (>= ${WEFT_PYTHON_VERSION}), python3 (<< ${_weft_py_major}.${_weft_py_next}), python3-numpy")
endif()

set(CPACK_DEBIAN_CUDA_PACKAGE_NAME weft-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "weft (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_CUDA_DESCRIPTION
"CUDA executor module for Weft
libweft_cuda.so, loaded by weft, weft-studio and the Python module to run schedules on
CUDA GPUs. It needs the NVIDIA driver and, from NVIDIA's installation, cuBLAS and cuDNN
(built against CUDA ${WEFT_INFO_CUDA_VERSION}, cuDNN ${WEFT_INFO_CUDNN_VERSION}); `weft devices` says what it found.")

include(CPack)
