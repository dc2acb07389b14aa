# gpuwhy_add_subdirs(): add every immediate subfolder that has a CMakeLists.txt.
# Why: components (importers, detectors, test sets) add themselves without
# everyone editing one shared list.
macro(gpuwhy_add_subdirs)
  file(GLOB _gpuwhy_subdirs LIST_DIRECTORIES true RELATIVE ${CMAKE_CURRENT_SOURCE_DIR}
       ${CMAKE_CURRENT_SOURCE_DIR}/*)
  list(SORT _gpuwhy_subdirs)
  foreach(_d ${_gpuwhy_subdirs})
    if(IS_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/${_d} AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${_d}/CMakeLists.txt)
      add_subdirectory(${_d})
    endif()
  endforeach()
endmacro()
