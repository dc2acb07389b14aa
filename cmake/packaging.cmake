# packaging.cmake: what `cmake --install` puts where (GNUInstallDirs), and the
# Debian package (`cpack -G DEB`) made from the same install tree.
#
# Installed (prefix /usr in the package, /usr/local by default):
#   bin/gpuwhy
#   lib/<multiarch>/gpuwhy/libgpuwhy_inject.so  (src/inject, when CUDA's cupti.h is found)
#   share/man/man1/gpuwhy.1.gz               generated from --help (packaging/gen_docs.sh)
#   share/bash-completion/completions/gpuwhy, share/zsh/vendor-completions/_gpuwhy
#   share/doc/gpuwhy/                        README, user docs, copyright, changelog,
#                                            examples/ (the bundled example trace,
#                                            deploy/: rules, dashboard, Slurm, Kubernetes)
#   share/lintian/overrides/gpuwhy           the accepted lintian tags, each with its reason
#                                            (none today: packaging/lintian-overrides)
# The man page and completions run the built binary, so they are made by the
# `gpuwhy_docs` target (part of ALL) rather than at configure time.

set(_pkg_src ${PROJECT_SOURCE_DIR}/packaging)
set(_pkg_out ${PROJECT_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${_pkg_out})

set(GPUWHY_PACKAGE_MAINTAINER
  "gpuwhy maintainers <maintainers@users.noreply.a-seed-c42f8b5e.example>"
  CACHE STRING "Maintainer field of the Debian package and its changelog")

# The changelog entry's date: the last commit's (reproducible: the same commit
# gives the same package bytes), else SOURCE_DATE_EPOCH or now.
set(GPUWHY_CHANGELOG_DATE "")
set(GPUWHY_MAN_DATE "")
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} log -1 --format=%cD
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE GPUWHY_CHANGELOG_DATE
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND ${GIT_EXECUTABLE} log -1 --format=%cd --date=format:%Y-%m-%d
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE GPUWHY_MAN_DATE
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(GPUWHY_CHANGELOG_DATE STREQUAL "")
  string(TIMESTAMP GPUWHY_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
  string(TIMESTAMP GPUWHY_MAN_DATE "%Y-%m-%d" UTC)
endif()
configure_file(${_pkg_src}/changelog.in ${_pkg_out}/changelog @ONLY)

# Man page and completions from the binary's --help; gzip -9n (no name, no
# time stamp) so that the package is reproducible, as Debian policy asks.
add_custom_command(
  OUTPUT ${_pkg_out}/gpuwhy.1 ${_pkg_out}/gpuwhy.1.gz ${_pkg_out}/gpuwhy.bash ${_pkg_out}/_gpuwhy
  COMMAND bash ${_pkg_src}/gen_docs.sh $<TARGET_FILE:gpuwhy> ${_pkg_out} ${GPUWHY_MAN_DATE}
  COMMAND gzip -9nf -k ${_pkg_out}/gpuwhy.1
  DEPENDS gpuwhy ${_pkg_src}/gen_docs.sh
  COMMENT "Generating gpuwhy.1 and shell completions from gpuwhy --help"
  VERBATIM)

# User documentation: policy 12.3 wants files over 4 kB in /usr/share/doc
# compressed. The contributor docs (style, architecture) stay in the tree.
set(_doc_outputs ${_pkg_out}/changelog.gz)
add_custom_command(OUTPUT ${_pkg_out}/changelog.gz
  COMMAND sh -c "gzip -9nc '${_pkg_out}/changelog' > '${_pkg_out}/changelog.gz'"
  DEPENDS ${_pkg_out}/changelog VERBATIM)
file(GLOB _user_docs ${PROJECT_SOURCE_DIR}/docs/*.md)
list(REMOVE_ITEM _user_docs ${PROJECT_SOURCE_DIR}/docs/style.md
  ${PROJECT_SOURCE_DIR}/docs/architecture.md)
list(APPEND _user_docs ${PROJECT_SOURCE_DIR}/README.md)
set(_small_docs "")
foreach(_doc ${_user_docs})
  file(SIZE ${_doc} _size)
  get_filename_component(_name ${_doc} NAME)
  if(_size GREATER 4096)
    add_custom_command(OUTPUT ${_pkg_out}/doc/${_name}.gz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_pkg_out}/doc
      COMMAND sh -c "gzip -9nc '${_doc}' > '${_pkg_out}/doc/${_name}.gz'"
      DEPENDS ${_doc} VERBATIM)
    list(APPEND _doc_outputs ${_pkg_out}/doc/${_name}.gz)
  else()
    list(APPEND _small_docs ${_doc})
  endif()
endforeach()

# Not part of a sanitizer build's ALL: nobody installs or packages one, and its
# binary would run under LeakSanitizer at build time (build it by name there).
set(_docs_in_all ALL)
if(GPUWHY_SANITIZE OR GPUWHY_FUZZ)
  set(_docs_in_all "")
endif()
add_custom_target(gpuwhy_docs ${_docs_in_all} DEPENDS ${_pkg_out}/gpuwhy.1.gz ${_pkg_out}/gpuwhy.bash
  ${_pkg_out}/_gpuwhy ${_doc_outputs})

install(FILES ${_pkg_out}/gpuwhy.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${_pkg_out}/gpuwhy.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
  RENAME gpuwhy)
install(FILES ${_pkg_out}/_gpuwhy DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${_doc_outputs} ${_small_docs} ${_pkg_src}/copyright
  DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The bundled example of README command 1, so that an installed gpuwhy can be
# tried with nothing else: gpuwhy analyze /usr/share/doc/gpuwhy/examples/*.json.gz
file(GLOB _examples ${PROJECT_SOURCE_DIR}/examples/*.json.gz ${PROJECT_SOURCE_DIR}/examples/*.ipynb
  ${PROJECT_SOURCE_DIR}/examples/README.md)
install(FILES ${_examples} DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
# The cluster files (Prometheus rules, Grafana dashboard, Slurm and Kubernetes
# examples): what an admin adapts, so examples, not configuration. The tests
# of the rules stay in the tree; the Dockerfile needs the build tree's .deb.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/deploy/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/deploy
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
  FILES_MATCHING PATTERN "*.yml" PATTERN "*.yaml" PATTERN "*.json" PATTERN "*.sbatch"
  PATTERN "README.md" PATTERN "*.test.yml" EXCLUDE PATTERN "docker" EXCLUDE)
# Installed only while it holds an override: an empty one would say nothing.
file(STRINGS ${_pkg_src}/lintian-overrides _overrides REGEX "^[^#]")
if(_overrides)
  install(FILES ${_pkg_src}/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides
    RENAME gpuwhy)
endif()

# ---- the Debian package ----
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpuwhy)
set(CPACK_PACKAGE_VERSION ${GPUWHY_VERSION})
set(CPACK_PACKAGE_CONTACT "${GPUWHY_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "diagnose GPU under-utilisation from traces, logs and live GPUs")
# Lines of at most 80 columns: CPack copies them into the control file as they are.
string(JOIN "\n" CPACK_PACKAGE_DESCRIPTION
  "gpuwhy puts NVML's GPU-Util side by side with what the GPU really did (SM"
  "fill, achieved occupancy, tensor-core share, DRAM bandwidth, power),"
  "classifies the shape of the utilization curve, finds the root cause, says how"
  "much time it costs, what to fix and what the fix should buy."
  ""
  "It reads PyTorch profiler (Kineto) traces, Nsight Systems SQLite exports,"
  "nvidia-smi and DCGM logs, and records jobs itself (NVML sampling, CUPTI"
  "tracing). `gpuwhy watch --prometheus` serves the same figures as Prometheus"
  "metrics on every node. `gpuwhy record --torch` profiles an unmodified PyTorch"
  "script, and `import gpuwhy` gives the same reports from Python and Jupyter.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${GPUWHY_PACKAGE_MAINTAINER}")
# Depends from the libraries the binaries actually link (dpkg-shlibdeps).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# `import gpuwhy` for the system python3 (src/python) is in the same package.
if(TARGET gpuwhy_python AND GPUWHY_DEB_PYTHON_DEPENDS)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${GPUWHY_DEB_PYTHON_DEPENDS}")
endif()
# Byte-compile the Python parts at install and remove the byte-code at removal
# (py3compile / py3clean, as dh_python3 does): record --torch's shim runs in
# every Python process of a job and should not be compiled at each start.
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${_pkg_src}/postinst ${_pkg_src}/prerm)
# NVML and libcupti are dlopen'ed from the NVIDIA driver and toolkit, which
# are not Debian main packages and differ per node: suggested, not required.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libnvidia-ml1 | nvidia-driver")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_THREADS 1)
include(CPack)
