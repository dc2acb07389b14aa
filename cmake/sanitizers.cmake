if(GPUWHY_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
if(GPUWHY_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "GPUWHY_FUZZ needs clang (set CMAKE_CXX_COMPILER=clang++)")
  endif()
  # Undefined behaviour stops the run like a crash, so that libFuzzer keeps the
  # input and run_fuzzers.sh fails; recovering only printed it to a log.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
