# The shared library, `cmake --install` and the packages that find it
# (issue 18; docs/install.md). Included at the end of CMakeLists.txt, once
# every dependency of the target `hydae` is known.
#
# `hydae` stays the static library everything in this tree links (the
# command, the tests and the benchmarks call internal hy_* functions). It is
# compiled position-independent with hidden visibility, so that the shared
# library `hydae_shared` (libhydae.so) is that same archive linked whole and
# exports only what include/hydae.h declares (its `#pragma GCC visibility`).
# Nothing is compiled twice.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(hydae PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  C_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
target_link_libraries(hydae PRIVATE ${CMAKE_DL_LIBS}) # dladdr: the installed lib/ (imports.c)

# 0.x: every minor version may change the ABI, so the SONAME carries it
# (libhydae.so.0.1); from 1.0 on the major version alone.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(HYDAE_SOVERSION "0.${PROJECT_VERSION_MINOR}")
else()
  set(HYDAE_SOVERSION "${PROJECT_VERSION_MAJOR}")
endif()

add_library(hydae_shared SHARED cmake/shared_library.c)
if(CMAKE_VERSION VERSION_LESS 3.24)
  target_link_libraries(hydae_shared PRIVATE
    -Wl,--whole-archive $<TARGET_FILE:hydae> -Wl,--no-whole-archive hydae)
else()
  target_link_libraries(hydae_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,hydae>")
endif()
if(NOT HYDAE_SANITIZE AND NOT HYDAE_FUZZ)
  # Every symbol resolved at link time (a sanitizer's runtime comes with
  # the executable instead).
  target_link_options(hydae_shared PRIVATE -Wl,--no-undefined)
endif()
target_include_directories(hydae_shared INTERFACE
  $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>)
set_target_properties(hydae_shared PROPERTIES
  OUTPUT_NAME hydae
  VERSION ${PROJECT_VERSION}
  SOVERSION ${HYDAE_SOVERSION}
  C_VISIBILITY_PRESET hidden)

# Where the installed `import` library is, seen from libhydae.so and from
# bin/hydae (imports.c; both usually ../share/hydae/lib), and the absolute
# path this build installs it to (an executable linked with libhydae.a
# elsewhere).
set(HYDAE_INSTALL_COMPONENTS "${CMAKE_INSTALL_DATADIR}/hydae/lib")
file(RELATIVE_PATH hydae_lib_from_libdir "${CMAKE_INSTALL_FULL_LIBDIR}"
     "${CMAKE_INSTALL_PREFIX}/${HYDAE_INSTALL_COMPONENTS}")
file(RELATIVE_PATH hydae_lib_from_bindir "${CMAKE_INSTALL_FULL_BINDIR}"
     "${CMAKE_INSTALL_PREFIX}/${HYDAE_INSTALL_COMPONENTS}")
set_property(SOURCE src/lang/imports.c APPEND PROPERTY COMPILE_DEFINITIONS
  HYDAE_LIB_FROM_LIBDIR="${hydae_lib_from_libdir}"
  HYDAE_LIB_FROM_BINDIR="${hydae_lib_from_bindir}"
  HYDAE_INSTALLED_LIB_DIR="${CMAKE_INSTALL_PREFIX}/${HYDAE_INSTALL_COMPONENTS}")

# What a program linked with libhydae.a must link besides: the libraries
# `hydae` links (expat, KLU, LAPACK, libm, ...) as paths for CMake and as
# -L/-l for pkg-config, found by walking its link interface.
function(hydae_static_dependencies target out_paths out_flags)
  set(paths "")
  set(flags "")
  set(queue "")
  get_target_property(items ${target} LINK_LIBRARIES)
  if(items)
    list(APPEND queue ${items})
  endif()
  set(seen "")
  while(queue)
    list(POP_FRONT queue item)
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" item "${item}")
    if(item STREQUAL "" OR item IN_LIST seen OR item MATCHES "^\\$<")
      continue()
    endif()
    list(APPEND seen "${item}")
    if(TARGET ${item})
      get_target_property(type ${item} TYPE)
      if(NOT type STREQUAL "INTERFACE_LIBRARY")
        get_target_property(location ${item} LOCATION)
        if(location)
          list(APPEND queue "${location}")
        endif()
      endif()
      get_target_property(more ${item} INTERFACE_LINK_LIBRARIES)
      if(more)
        list(APPEND queue ${more})
      endif()
    elseif(IS_ABSOLUTE "${item}")
      list(APPEND paths "${item}")
      get_filename_component(dir "${item}" DIRECTORY)
      get_filename_component(file "${item}" NAME)
      if(file MATCHES "^lib(.+)\\.(so|a)(\\..*)?$")
        if(NOT dir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
          list(APPEND flags "-L${dir}")
        endif()
        list(APPEND flags "-l${CMAKE_MATCH_1}")
      else()
        list(APPEND flags "${item}")
      endif()
    elseif(item MATCHES "^-")
      list(APPEND paths "${item}")
      list(APPEND flags "${item}")
    else()
      list(APPEND paths "${item}")
      list(APPEND flags "-l${item}")
    endif()
  endwhile()
  list(REMOVE_DUPLICATES flags)
  set(${out_paths} "${paths}" PARENT_SCOPE)
  set(${out_flags} "${flags}" PARENT_SCOPE)
endfunction()
hydae_static_dependencies(hydae HYDAE_STATIC_LINK_PATHS HYDAE_STATIC_LINK_FLAGS)
string(REPLACE ";" " " HYDAE_PC_LIBS_PRIVATE "${HYDAE_STATIC_LINK_FLAGS}")

install(TARGETS hydae_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS hydae ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS hydae_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES include/hydae.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY lib/ DESTINATION ${HYDAE_INSTALL_COMPONENTS} FILES_MATCHING PATTERN "*.hym")
install(FILES docs/hydae.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
# The FMU runtime of `hydae export` (FMI builds): beside libhydae.so, so
# that it finds the installed component library as libhydae.so does, and
# found by an installed bin/hydae relative to itself (src/cli/export.c).
if(TARGET hydae_fmu_runtime)
  install(TARGETS hydae_fmu_runtime LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  file(RELATIVE_PATH hydae_runtime_from_bindir "${CMAKE_INSTALL_FULL_BINDIR}"
       "${CMAKE_INSTALL_FULL_LIBDIR}/hydae_fmu_runtime.so")
  set_property(SOURCE src/cli/export.c APPEND PROPERTY COMPILE_DEFINITIONS
    HYDAE_FMU_RUNTIME_FROM_BINDIR="${hydae_runtime_from_bindir}")
endif()

# The CMake package: find_package(hydae) gives hydae::hydae.
set(HYDAE_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/hydae")
file(RELATIVE_PATH HYDAE_PREFIX_FROM_CMAKE_DIR "${CMAKE_INSTALL_PREFIX}/${HYDAE_CMAKE_DIR}"
     "${CMAKE_INSTALL_PREFIX}")
configure_file(cmake/hydae-config.cmake.in hydae-config.cmake @ONLY)
# 0.x: a newer minor version is not compatible (as the SONAME says).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(hydae_compatibility SameMinorVersion)
else()
  set(hydae_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(hydae-config-version.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${hydae_compatibility})
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hydae-config.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/hydae-config-version.cmake
        DESTINATION ${HYDAE_CMAKE_DIR})

# pkg-config: hydae.pc, relocatable through ${pcfiledir}.
set(HYDAE_PC_DIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
file(RELATIVE_PATH HYDAE_PREFIX_FROM_PC_DIR "${CMAKE_INSTALL_PREFIX}/${HYDAE_PC_DIR}"
     "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" HYDAE_PREFIX_FROM_PC_DIR "${HYDAE_PREFIX_FROM_PC_DIR}")
configure_file(cmake/hydae.pc.in hydae.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hydae.pc DESTINATION ${HYDAE_PC_DIR})

# The installed tree, consumed as a user would (tests/install_test.sh).
add_test(NAME install_consumer
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/install_test.sh
          ${CMAKE_CURRENT_BINARY_DIR} ${CMAKE_C_COMPILER} "${HYDAE_SANITIZE}")
set_tests_properties(install_consumer PROPERTIES TIMEOUT 300 LABELS install)

# examples/embed/run_model.c: a program on the shared library of this
# build, as a user's would be (tests/embed_run_model.sh runs it).
add_executable(example_run_model examples/embed/run_model.c)
target_link_libraries(example_run_model PRIVATE hydae_shared)
add_test(NAME embed_run_model
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/embed_run_model.sh
          $<TARGET_FILE:example_run_model> ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(embed_run_model PROPERTIES TIMEOUT 60)
# examples/embed/sweep_model.c: a parameter study through hydae_sweep_*
# (tests/embed_sweep_model.sh).
add_executable(example_sweep_model examples/embed/sweep_model.c)
target_link_libraries(example_sweep_model PRIVATE hydae_shared m)
add_test(NAME embed_sweep_model
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/embed_sweep_model.sh
          $<TARGET_FILE:example_sweep_model> ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(embed_sweep_model PROPERTIES TIMEOUT 60)

# tests/test_model_threads.c and test_sim_threads.c run models on several threads (POSIX threads;
# in glibc's libc since 2.34, -pthread elsewhere).
find_package(Threads REQUIRED)
target_link_libraries(test_model_threads PRIVATE Threads::Threads)
target_link_libraries(test_sim_threads PRIVATE Threads::Threads)
target_link_libraries(hydae_cli PRIVATE Threads::Threads) # hydae sweep
# `mpirun -n P hydae sweep ...` (src/cli/sweep_mpi.c) with -DHYDAE_MPI=ON
# when MPI is found. Off by default: loading Open MPI's libraries costs every
# hydae process about 3 million instructions (1 ms) of dynamic linking.
option(HYDAE_MPI "hydae sweep across MPI ranks (when MPI is found)" OFF)
if(HYDAE_MPI)
  find_package(MPI COMPONENTS C QUIET)
  if(MPI_C_FOUND)
    target_link_libraries(hydae_cli PRIVATE MPI::MPI_C)
    target_compile_definitions(hydae_cli PRIVATE HYDAE_HAVE_MPI)
  endif()
endif()
# tests/cli_sweep_mpi.sh skips without mpirun or MPI.
set_tests_properties(cli_sweep_mpi PROPERTIES SKIP_RETURN_CODE 77)
