# CUPTI headers for libgpuwhy_inject.so (src/inject) and the fake libcupti of
# the tests (tests/fake_cupti). Headers only: libcupti is dlopen'ed at run time,
# never linked. Without a toolkit the library and its tests are skipped and
# `gpuwhy record --trace` says so (GPUWHY_HAVE_CUPTI=0).
option(GPUWHY_CUPTI "Build the CUPTI injection library when the CUDA toolkit headers are found" ON)
set(GPUWHY_HAVE_CUPTI OFF)
if(GPUWHY_CUPTI)
  find_path(GPUWHY_CUPTI_INCLUDE_DIR cupti.h
    HINTS $ENV{CUDA_HOME}/include $ENV{CUDA_PATH}/include
          $ENV{CUDA_HOME}/extras/CUPTI/include
          /usr/local/cuda/include /usr/local/cuda/extras/CUPTI/include
          /usr/local/cuda-13.0/include)
  find_path(GPUWHY_CUDA_H_DIR cuda.h
    HINTS $ENV{CUDA_HOME}/include $ENV{CUDA_PATH}/include /usr/local/cuda/include
          /usr/local/cuda-13.0/include)
  if(GPUWHY_CUPTI_INCLUDE_DIR AND GPUWHY_CUDA_H_DIR)
    set(GPUWHY_HAVE_CUPTI ON)
    message(STATUS "gpuwhy: CUPTI headers in ${GPUWHY_CUPTI_INCLUDE_DIR}: building libgpuwhy_inject.so")
  else()
    message(STATUS "gpuwhy: no CUDA toolkit (cupti.h) found: libgpuwhy_inject.so and its tests are skipped")
  endif()
else()
  message(STATUS "gpuwhy: GPUWHY_CUPTI=OFF: libgpuwhy_inject.so and its tests are skipped")
endif()
