# The libraries the tuner links, as four interface targets: tuner_dep_sqlite3,
# tuner_dep_re2, tuner_dep_yaml and tuner_dep_log (spdlog and fmt).
#
# A `tuner best` or `tuner status` is mostly the process starting: with every
# C++ library a shared object, the dynamic loader resolved about 5,000 symbols
# (a third of them sqlite3's own, a third libstdc++'s) before main(). So the
# libraries Debian ships as archives (libsqlite3.a, libre2.a, libyaml-cpp.a)
# are linked from them, spdlog and fmt are compiled in (header-only: Debian
# ships no archive of them), and the `tuner` program carries its own
# libstdc++ (tuner_link_runtime_statically): it loads libc and libm only.
# Where an archive is missing, the shared library is linked instead.

find_package(Threads REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(spdlog REQUIRED)
find_package(fmt REQUIRED)
find_package(PkgConfig REQUIRED)
# Debian: libre2-dev
pkg_check_modules(RE2 REQUIRED re2)

# Every file compiles spdlog and fmt the same way (one logger registry, one
# copy of fmt's code): the definitions are global, not per target.
add_compile_definitions(SPDLOG_FMT_EXTERNAL FMT_HEADER_ONLY=1)
add_library(tuner_dep_log INTERFACE)
target_include_directories(tuner_dep_log SYSTEM INTERFACE
  $<TARGET_PROPERTY:spdlog::spdlog_header_only,INTERFACE_INCLUDE_DIRECTORIES>
  $<TARGET_PROPERTY:fmt::fmt-header-only,INTERFACE_INCLUDE_DIRECTORIES>)
target_link_libraries(tuner_dep_log INTERFACE Threads::Threads)

# tuner_static_or_shared(VAR ARCHIVE SHARED): VAR is ARCHIVE's path where it
# exists (and the build is not for libFuzzer), else SHARED.
function(tuner_static_or_shared var archive shared)
  find_library(TUNER_ARCHIVE_${archive} NAMES ${archive})
  if(TUNER_ARCHIVE_${archive} AND NOT TUNER_FUZZ)
    set(${var} ${TUNER_ARCHIVE_${archive}} PARENT_SCOPE)
  else()
    set(${var} ${shared} PARENT_SCOPE)
  endif()
endfunction()

tuner_static_or_shared(sqlite3_lib libsqlite3.a SQLite::SQLite3)
add_library(tuner_dep_sqlite3 INTERFACE)
target_include_directories(tuner_dep_sqlite3 SYSTEM INTERFACE
                           ${SQLite3_INCLUDE_DIRS})
target_link_libraries(tuner_dep_sqlite3 INTERFACE
  ${sqlite3_lib} ${CMAKE_DL_LIBS} Threads::Threads m)

tuner_static_or_shared(re2_lib libre2.a "${RE2_LINK_LIBRARIES}")
add_library(tuner_dep_re2 INTERFACE)
target_include_directories(tuner_dep_re2 SYSTEM INTERFACE ${RE2_INCLUDE_DIRS})
target_link_libraries(tuner_dep_re2 INTERFACE ${re2_lib} Threads::Threads)

tuner_static_or_shared(yaml_lib libyaml-cpp.a yaml-cpp)
add_library(tuner_dep_yaml INTERFACE)
target_include_directories(tuner_dep_yaml SYSTEM INTERFACE
  $<TARGET_PROPERTY:yaml-cpp,INTERFACE_INCLUDE_DIRECTORIES>)
target_link_libraries(tuner_dep_yaml INTERFACE ${yaml_lib})

# tuner_link_runtime_statically(TARGET): TARGET carries libstdc++ and
# libgcc (not under the sanitizers, whose runtimes expect the shared ones).
function(tuner_link_runtime_statically target)
  if(NOT TUNER_SANITIZE AND NOT TUNER_FUZZ)
    target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
  endif()
endfunction()
