# Locates Arrow C++ and Parquet C++ and defines the imported targets
#   paimon_rowid::arrow  and  paimon_rowid::parquet
#
# Two sources, in this order:
#   1. the pyarrow wheel of the Python interpreter in use (the pinned pyarrow X.Y). Its
#      libraries are linked by full file name (libarrow.so.<so_version>), so no symlinks are
#      needed and the Python module shares the one Arrow that pyarrow loads;
#   2. a system Arrow found with find_package(Arrow) / find_package(Parquet), for C++ users
#      without Python. Force it with -DPAIMON_ROWID_ARROW_FROM=system.

set(PAIMON_ROWID_ARROW_FROM "auto" CACHE STRING "Where Arrow comes from: auto, pyarrow or system")

set(_pr_found_pyarrow FALSE)
if(NOT PAIMON_ROWID_ARROW_FROM STREQUAL "system")
  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND)
    execute_process(
      COMMAND "${Python3_EXECUTABLE}" -c
              "import pyarrow as pa; print(pa.get_include()); print(pa.get_library_dirs()[0]); print(pa.cpp_build_info.so_version); print(pa.__version__)"
      OUTPUT_VARIABLE _pr_out RESULT_VARIABLE _pr_rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_pr_rc EQUAL 0)
      string(REPLACE "\n" ";" _pr_lines "${_pr_out}")
      list(GET _pr_lines 0 PYARROW_INCLUDE_DIR)
      list(GET _pr_lines 1 PYARROW_LIB_DIR)
      list(GET _pr_lines 2 PYARROW_SO_VERSION)
      list(GET _pr_lines 3 PYARROW_VERSION)
      set(_pr_found_pyarrow TRUE)
    endif()
  endif()
  if(NOT _pr_found_pyarrow AND PAIMON_ROWID_ARROW_FROM STREQUAL "pyarrow")
    message(FATAL_ERROR "pyarrow was requested but could not be imported by ${Python3_EXECUTABLE}")
  endif()
endif()

if(_pr_found_pyarrow)
  message(STATUS "paimon_rowid: Arrow ${PYARROW_VERSION} from pyarrow at ${PYARROW_LIB_DIR}")
  foreach(_lib arrow parquet arrow_compute arrow_dataset arrow_acero arrow_s3)
    set(_path "${PYARROW_LIB_DIR}/lib${_lib}.so.${PYARROW_SO_VERSION}")
    if(EXISTS "${_path}")
      add_library(paimon_rowid::${_lib} SHARED IMPORTED GLOBAL)
      set_target_properties(paimon_rowid::${_lib} PROPERTIES
        IMPORTED_LOCATION "${_path}"
        IMPORTED_NO_SONAME FALSE
        INTERFACE_INCLUDE_DIRECTORIES "${PYARROW_INCLUDE_DIR}")
    endif()
  endforeach()
  # Arrow 21 split compute out of libarrow and Arrow 23 split S3 out of it; an Arrow that
  # still bundles one gets an empty target in its place.
  foreach(_lib arrow_compute arrow_s3)
    if(NOT TARGET paimon_rowid::${_lib})
      add_library(paimon_rowid::${_lib} INTERFACE IMPORTED GLOBAL)
    endif()
  endforeach()
  # The wheel is built with the C++11 std::string ABI, like every current manylinux_2_28 build.
  target_compile_definitions(paimon_rowid::arrow INTERFACE _GLIBCXX_USE_CXX11_ABI=1)
  set(PAIMON_ROWID_ARROW_RPATH "${PYARROW_LIB_DIR}")
else()
  find_package(Arrow REQUIRED)
  find_package(Parquet REQUIRED)
  find_package(ArrowCompute QUIET)
  add_library(paimon_rowid::arrow INTERFACE IMPORTED GLOBAL)
  target_link_libraries(paimon_rowid::arrow INTERFACE Arrow::arrow_shared)
  add_library(paimon_rowid::parquet INTERFACE IMPORTED GLOBAL)
  target_link_libraries(paimon_rowid::parquet INTERFACE Parquet::parquet_shared)
  add_library(paimon_rowid::arrow_compute INTERFACE IMPORTED GLOBAL)
  if(TARGET ArrowCompute::arrow_compute_shared)
    target_link_libraries(paimon_rowid::arrow_compute INTERFACE ArrowCompute::arrow_compute_shared)
  endif()
  find_package(ArrowS3 QUIET)
  add_library(paimon_rowid::arrow_s3 INTERFACE IMPORTED GLOBAL)
  if(TARGET ArrowS3::arrow_s3_shared)
    target_link_libraries(paimon_rowid::arrow_s3 INTERFACE ArrowS3::arrow_s3_shared)
  endif()
  set(PAIMON_ROWID_ARROW_RPATH "")
  message(STATUS "paimon_rowid: Arrow ${Arrow_VERSION} from the system")
endif()
