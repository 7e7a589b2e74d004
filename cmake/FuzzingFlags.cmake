# Compiler flags for PAIMON_ROWID_BUILD_FUZZERS=ON (fuzz/README.md).
#
# Every target of the build (our static libraries and the fuzz targets) is compiled with
# coverage instrumentation for libFuzzer (-fsanitize=fuzzer-no-link) plus ASan and UBSan;
# only the fuzz executables link libFuzzer's main (-fsanitize=fuzzer, in fuzz/CMakeLists.txt).
# Arrow C++ comes from the pyarrow wheel as gcc-built shared libraries: they are linked as
# they are (not instrumented). clang on Debian uses libstdc++ by default, and the imported
# Arrow target already defines _GLIBCXX_USE_CXX11_ABI=1 like the wheel, so the two agree.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "PAIMON_ROWID_BUILD_FUZZERS needs clang (CMAKE_CXX_COMPILER=clang++), "
                      "not ${CMAKE_CXX_COMPILER_ID}")
endif()
set(PAIMON_ROWID_SANITIZERS "address,undefined")
add_compile_options(-fsanitize=fuzzer-no-link,${PAIMON_ROWID_SANITIZERS}
                    -fno-sanitize-recover=undefined -fno-omit-frame-pointer
                    -gline-tables-only)  # file:line in reports; full -g only slows the build
# UBSan's vptr check compares typeinfo by name, so our casts of Arrow objects (whose RTTI comes
# from the gcc-built libraries) are checked too; Arrow's own code is not instrumented.
add_link_options(-fsanitize=${PAIMON_ROWID_SANITIZERS})
