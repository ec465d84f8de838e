# Fails if a weak (COMDAT) symbol of a per-ISA object of libqparity.a is also defined by another
# object of the library. Such a symbol is an inline function or template instantiated in several
# translation units built with different -m flags; the linker keeps one copy, so code for an older
# ISA could end up calling a copy compiled for a newer one (SIGILL). The ISA translation units
# avoid that by putting everything in a per-ISA namespace (rounding/simd_x86.h).
# Usage: cmake -DNM=<nm> -DLIBRARY=<libqparity.a> -DISA_OBJECTS=<stem,stem,...> -P odr_guard.cmake
# ISA_OBJECTS: the per-ISA objects' file stems (requantize_avx2, ukernel_avx512, ...), which CMake
# collects from the kernel files it compiles with ISA flags (cmake/QparityIsas.cmake).
execute_process(COMMAND ${NM} -A --defined-only ${LIBRARY}
  OUTPUT_VARIABLE _out RESULT_VARIABLE _rc ERROR_QUIET)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIBRARY}")
endif()
string(REPLACE "\n" ";" _lines "${_out}")
string(REPLACE "," ";" _isa_objects "${ISA_OBJECTS}")
# The scalar files are compiled for the baseline like the rest of the library.
list(FILTER _isa_objects EXCLUDE REGEX "_scalar$")
if(NOT _isa_objects)
  message(FATAL_ERROR "odr_guard.cmake: ISA_OBJECTS names no per-ISA object")
endif()
set(_weak_by_object "")
foreach(_line IN LISTS _lines)
  # "<archive>:<object>:<address> <type> <symbol>"; weak definitions have type W or V.
  if(_line MATCHES "^[^:]*:([^:]+):[0-9a-fA-F]* ([WVu]) (.+)$")
    set(_object "${CMAKE_MATCH_1}")
    set(_symbol "${CMAKE_MATCH_3}")
    # DWARF personality references are data, identical whatever the flags.
    if(_symbol MATCHES "^DW\\.ref\\.")
      continue()
    endif()
    string(MAKE_C_IDENTIFIER "${_symbol}" _key)
    list(APPEND _symbols_${_key} "${_object}")
    set(_name_${_key} "${_symbol}")
    list(APPEND _all_keys ${_key})
  endif()
endforeach()
list(REMOVE_DUPLICATES _all_keys)
set(_bad 0)
set(_isa_weak 0)
foreach(_key IN LISTS _all_keys)
  set(_objs ${_symbols_${_key}})
  list(REMOVE_DUPLICATES _objs)
  set(_has_isa FALSE)
  foreach(_o IN LISTS _objs)
    foreach(_i IN LISTS _isa_objects)
      if(_o MATCHES "^${_i}\\.")
        set(_has_isa TRUE)
      endif()
    endforeach()
  endforeach()
  if(_has_isa)
    math(EXPR _isa_weak "${_isa_weak} + 1")
    list(LENGTH _objs _n)
    if(_n GREATER 1)
      message(SEND_ERROR "weak symbol shared across objects with different ISA flags: "
                         "${_name_${_key}} in ${_objs}")
      set(_bad 1)
    endif()
  endif()
endforeach()
if(_isa_weak EQUAL 0)
  message(FATAL_ERROR "no weak symbol found in the ISA objects of ${LIBRARY}: is the archive "
                      "built with the SIMD paths, and does nm work?")
endif()
message(STATUS "ODR guard: ${_isa_weak} weak symbols in the ISA objects, none shared")
