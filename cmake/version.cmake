# version.cmake: GPUWHY_VERSION, the one version string of a build. `gpuwhy
# --version`, the reports' tool.version and the Debian package all print it.
#
# Why one string that is also a valid Debian version: a user who reports a
# problem quotes `gpuwhy --version`, and an admin compares it with
# `dpkg -l gpuwhy`; both must name the same commit, and dpkg must order
# upgrades correctly.
#
# Source, in order:
#   1. `git describe --tags --always --dirty --match 'v[0-9]*'` of a checkout:
#        tag v0.6.0 exactly          -> 0.6.0
#        0.6.0 plus 12 commits       -> 0.6.0+git12.gabc1234   (sorts after 0.6.0)
#        no tag yet (project 0.1.0)  -> 0.1.0~git192.gabc1234  (192 = commits in
#                                       HEAD; sorts before the 0.1.0 release)
#        uncommitted changes         -> the above + ".dirty"
#   2. a VERSION file at the top of the source tree (a release tarball writes one);
#   3. project(VERSION) (a copy without .git and without VERSION).
# Evaluated at configure time; a commit or checkout re-runs the configure step
# (CMAKE_CONFIGURE_DEPENDS on the HEAD reflog), so the string stays true.
set(GPUWHY_VERSION "")
set(GPUWHY_VERSION_SOURCE "project()")
find_package(Git QUIET)
if(GIT_FOUND)
  # Only this tree's own repository: a tarball unpacked inside another
  # checkout must not take that checkout's version.
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --show-toplevel
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _toplevel
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  get_filename_component(_toplevel "${_toplevel}" REALPATH)
  get_filename_component(_srcdir "${PROJECT_SOURCE_DIR}" REALPATH)
endif()
if(GIT_FOUND AND _toplevel STREQUAL _srcdir)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --tags --always --dirty --match "v[0-9]*"
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _describe
    RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_rc EQUAL 0 AND NOT _describe STREQUAL "")
    set(_dirty "")
    if(_describe MATCHES "-dirty$")
      set(_dirty ".dirty")
      string(REGEX REPLACE "-dirty$" "" _describe "${_describe}")
    endif()
    if(_describe MATCHES "^v([0-9][0-9A-Za-z.~+]*)-([0-9]+)-g([0-9a-f]+)$")
      set(GPUWHY_VERSION "${CMAKE_MATCH_1}+git${CMAKE_MATCH_2}.g${CMAKE_MATCH_3}${_dirty}")
    elseif(_describe MATCHES "^v([0-9][0-9A-Za-z.~+]*)$")
      set(GPUWHY_VERSION "${CMAKE_MATCH_1}${_dirty}")
    elseif(_describe MATCHES "^[0-9a-f]+$")
      # No release tag: count commits so that later snapshots sort higher.
      execute_process(COMMAND ${GIT_EXECUTABLE} rev-list --count HEAD
        WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _count
        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      set(GPUWHY_VERSION "${PROJECT_VERSION}~git${_count}.g${_describe}${_dirty}")
    endif()
    if(NOT GPUWHY_VERSION STREQUAL "")
      set(GPUWHY_VERSION_SOURCE "git describe (${_describe}${_dirty})")
      execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --absolute-git-dir
        WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _git_dir
        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(EXISTS "${_git_dir}/logs/HEAD")
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_git_dir}/logs/HEAD")
      endif()
    endif()
  endif()
endif()
if(GPUWHY_VERSION STREQUAL "" AND EXISTS "${PROJECT_SOURCE_DIR}/VERSION")
  file(STRINGS "${PROJECT_SOURCE_DIR}/VERSION" GPUWHY_VERSION LIMIT_COUNT 1)
  string(STRIP "${GPUWHY_VERSION}" GPUWHY_VERSION)
  set(GPUWHY_VERSION_SOURCE "VERSION file")
endif()
if(GPUWHY_VERSION STREQUAL "")
  set(GPUWHY_VERSION "${PROJECT_VERSION}")
endif()
if(NOT GPUWHY_VERSION MATCHES "^[0-9][0-9A-Za-z.+~]*$")
  message(FATAL_ERROR "gpuwhy: version '${GPUWHY_VERSION}' (${GPUWHY_VERSION_SOURCE}) is not a valid Debian upstream version")
endif()
message(STATUS "gpuwhy: version ${GPUWHY_VERSION} from ${GPUWHY_VERSION_SOURCE}")
