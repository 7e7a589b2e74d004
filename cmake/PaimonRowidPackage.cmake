# Writes and installs the paimon_rowid CMake package (included from
# cpp/src/paimon_rowid/CMakeLists.txt once the pr_* targets exist).
#
# A consumer does
#   find_package(paimon_rowid REQUIRED)
#   target_link_libraries(app PRIVATE paimon_rowid::paimon_rowid)
# and gets the static libraries, the headers and, through the same
# FindArrowForPaimonRowid.cmake this build used, Arrow C++ / Parquet C++. The package records
# where Arrow came from at build time (the pyarrow wheel of the interpreter below, or a system
# Arrow) and refuses a pyarrow whose libarrow so-version differs: the static libraries are
# compiled against that exact Arrow.
include(CMakePackageConfigHelpers)

set(PAIMON_ROWID_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/paimon_rowid"
    CACHE STRING "Where cmake --install puts paimon_rowidConfig.cmake (relative to the prefix)")

if(PYARROW_LIB_DIR)
  set(PAIMON_ROWID_PACKAGE_ARROW_FROM "pyarrow")
else()
  set(PAIMON_ROWID_PACKAGE_ARROW_FROM "system")
endif()

install(EXPORT paimon_rowidTargets NAMESPACE paimon_rowid::
        DESTINATION ${PAIMON_ROWID_INSTALL_CMAKEDIR} FILE paimon_rowidTargets.cmake)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/paimon_rowidConfig.cmake.in
  ${PROJECT_BINARY_DIR}/paimon_rowidConfig.cmake
  INSTALL_DESTINATION ${PAIMON_ROWID_INSTALL_CMAKEDIR})
# 0.x: a minor release may change the C++ API, so only the same X.Y is compatible.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/paimon_rowidConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/paimon_rowidConfig.cmake
              ${PROJECT_BINARY_DIR}/paimon_rowidConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FindArrowForPaimonRowid.cmake
        DESTINATION ${PAIMON_ROWID_INSTALL_CMAKEDIR})
