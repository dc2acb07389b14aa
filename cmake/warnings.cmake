# gpuwhy_target_warnings(target): the house warning set (docs/style.md).
function(gpuwhy_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
    -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
    -Wnull-dereference -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
  if(GPUWHY_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
