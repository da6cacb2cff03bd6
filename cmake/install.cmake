# `cmake --install`: programs, libraries, headers, assets, docs, desktop integration and the
# package config, in the GNUInstallDirs layout. Components: `weft` (everything but the CUDA
# module) and `cuda` (libweft_cuda.so, which needs NVIDIA's cuBLAS and cuDNN at run time).
#
# Where things go, relative to the prefix:
#   bin/weft, bin/weft-studio                     (static weft_core inside: no Weft library needed)
#   <libdir>/libweft.so                           Weft::core, for programs that embed Weft
#   <libdir>/libweft_gpu.so, <libdir>/weft/libweft_cuda.so   Weft::cuda and the module it loads
#   <libdir>/cmake/Weft/                          WeftConfig.cmake (find_package(Weft))
#   include/weft/{core,gpu}/, include/weft/build_info.h
#   share/weft/assets/                            device presets and the sample model; programs find
#                                                 them from bin/ as ../share/weft/assets
#   lib/python3/dist-packages/weft*.so            the Python module (Debian's path)
#   share/applications, share/icons, share/mime   studio launcher, icon, .onnx / .weft types
#   share/doc/weft/                               README and docs/
set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME weft)
include(CMakePackageConfigHelpers)

set(WEFT_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Weft)

install(TARGETS weft RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET weft-studio)
  install(TARGETS weft-studio RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

set(_weft_exported weft_shared)
if(TARGET weft_gpu_shared)
  list(APPEND _weft_exported weft_gpu_shared)
endif()
install(TARGETS ${_weft_exported} EXPORT WeftTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT weft
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET weft_cuda)
  install(TARGETS weft_cuda LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/weft COMPONENT cuda)
endif()

# proto/onnx_proto_util.h is shared by core's layers only: it includes ONNX's protobuf headers,
# which the installed package does not require.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/weft/core DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/weft
        PATTERN "onnx_proto_util.h" EXCLUDE)
if(TARGET weft_gpu_shared)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/gpu/include/weft/gpu DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/weft)
endif()
install(FILES ${WEFT_GENERATED_INCLUDE_DIR}/weft/build_info.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/weft)

install(EXPORT WeftTargets NAMESPACE Weft:: DESTINATION ${WEFT_CMAKE_INSTALL_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/WeftConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/generated/WeftConfig.cmake
                              INSTALL_DESTINATION ${WEFT_CMAKE_INSTALL_DIR} PATH_VARS CMAKE_INSTALL_DATADIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/generated/WeftConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/generated/WeftConfig.cmake ${CMAKE_BINARY_DIR}/generated/WeftConfigVersion.cmake
        DESTINATION ${WEFT_CMAKE_INSTALL_DIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/assets/ DESTINATION ${CMAKE_INSTALL_DATADIR}/weft/assets)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

if(TARGET weft-studio)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/weft-studio.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/weft-studio.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/weft-mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages RENAME weft.xml)
endif()

if(TARGET weft_python)
  install(TARGETS weft_python LIBRARY DESTINATION ${WEFT_PYTHON_INSTALL_DIR})
endif()
