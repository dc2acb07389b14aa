# gpuwhy_target_warnings(target): the house warning set (docs/style.md).
function(gpuwhy_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
    -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
    -Wnull-dereference -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
  if(GPUWHY_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# gpuwhy_hot_sources(target file...): compile `file`s of `target` at -O3 in
# the optimized configurations. Why: the per-event parse and the analysis
# passes over every row gained ~2% of `analyze` CPU at -O3 on the 10x bench
# trace (docs/performance.md); the rest of the code stays at the default -O2,
# so a clean build costs little more.
function(gpuwhy_hot_sources target)
  set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target} PROPERTIES
    COMPILE_OPTIONS "$<$<CONFIG:Release,RelWithDebInfo>:-O3>")
endfunction()
