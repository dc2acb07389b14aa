# All dependencies come from Debian packages (scripts/install_deps.sh). No downloads.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(simdjson REQUIRED)
find_package(fmt REQUIRED)
find_package(ZLIB REQUIRED)
pkg_check_modules(ISAL IMPORTED_TARGET libisal)
pkg_check_modules(LIBDEFLATE IMPORTED_TARGET libdeflate)
pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3)
# HTTP/2 for the one gRPC call to the kubelet's pod-resources socket (watch).
pkg_check_modules(NGHTTP2 REQUIRED IMPORTED_TARGET libnghttp2)
find_package(Curses)
find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
if(GPUWHY_DEV_MODE)
  find_package(GTest REQUIRED)
  find_package(benchmark QUIET)
endif()

# CUDA toolkit is optional: cuda_occupancy.h is header-only and needs no GPU.
find_path(GPUWHY_CUDA_INCLUDE_DIR cuda_occupancy.h
  HINTS $ENV{CUDA_HOME}/include /usr/local/cuda/include /usr/include)
if(GPUWHY_CUDA_INCLUDE_DIR)
  message(STATUS "gpuwhy: cuda_occupancy.h found in ${GPUWHY_CUDA_INCLUDE_DIR}")
else()
  message(STATUS "gpuwhy: CUDA toolkit not found; occupancy uses the built-in table only")
endif()

# protobuf is optional: with it (and protoc) the XSpace (*.xplane.pb) importer
# compiles the vendored schema (third_party/xplane/xplane.proto) and links
# libprotobuf (src/import/xplane/; nothing else sees protobuf). Without it the
# importer is left out: such files are still recognised and refused with a
# line saying how to enable it. -DGPUWHY_XPLANE=OFF leaves it out on purpose.
option(GPUWHY_XPLANE "Build the JAX/XLA XSpace (*.xplane.pb) importer (needs libprotobuf-dev, protobuf-compiler)" ON)
set(GPUWHY_HAVE_XPLANE OFF)
if(GPUWHY_XPLANE)
  find_package(Protobuf QUIET)
  if(Protobuf_FOUND AND TARGET protobuf::libprotobuf AND TARGET protobuf::protoc)
    set(GPUWHY_HAVE_XPLANE ON)
    message(STATUS "gpuwhy: protobuf ${Protobuf_VERSION} found; XSpace (*.xplane.pb) importer on")
  else()
    message(STATUS "gpuwhy: protobuf/protoc not found; XSpace (*.xplane.pb) importer left out "
                   "(apt-get install libprotobuf-dev protobuf-compiler, then reconfigure)")
  endif()
else()
  message(STATUS "gpuwhy: GPUWHY_XPLANE=OFF; XSpace (*.xplane.pb) importer left out")
endif()
