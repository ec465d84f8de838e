# The ISA paths this build compiles and the kernel families built for them, all derived from the
# one ISA list (include/qparity/isa_list.h, read by QparityIsaList.cmake).
#
#   QPARITY_ISAS (cache)       which paths to compile: "all" (default: every path of the list this
#                              processor and compiler can build), "native" (the paths this machine's
#                              /proc/cpuinfo shows, e.g. for a sanitizer build that should compile
#                              only what it can run), or a list of names ("scalar;avx2" or
#                              "scalar,avx2"); every named path brings its ancestors.
#   QPARITY_COMPILED_ISAS      the result, in list order
#
#   qparity_isa_sources(<target> <isa> <sources...>)
#       compiles sources with the ISA's flags (its ancestors' too) and defines, for them,
#       QPARITY_TARGET_ISA=k<Id> and QPARITY_TARGET_HAS_<name> for the ISA and each ancestor: the
#       one vocabulary ISA-specific code selects its register code with.
#   qparity_kernel_files(<pattern>)
#       per-ISA kernel files: @ISA@ in the pattern (relative to the project root) is each ISA's
#       name; the files that exist for a compiled ISA are compiled into qparity with its flags. A
#       file registers the kernel families it defines (its QPARITY_DEFINE_KERNELS(<Family>) lines,
#       kernels/registry/kernel_registry.h), so adding an ISA's kernels is adding its file.
#   qparity_write_isa_header()
#       writes qparity_build_isas.h (the compiled mask and each family's ISAs) once every family
#       is declared.
include(${CMAKE_CURRENT_LIST_DIR}/QparityIsaList.cmake)
qparity_read_isa_list(${PROJECT_SOURCE_DIR}/include/qparity/isa_list.h)

set(QPARITY_ISAS "all" CACHE STRING
    "ISA paths to compile: all, native (this machine's), or a list of names from include/qparity/isa_list.h")

set(_available "")
foreach(_isa IN LISTS QPARITY_ALL_ISAS)
  qparity_isa_arch_matches("${QPARITY_ISA_${_isa}_ARCH}" "${CMAKE_SYSTEM_PROCESSOR}"
                           "${CMAKE_CXX_COMPILER_ID}" _ok)
  if(_ok)
    list(APPEND _available ${_isa})
  endif()
endforeach()

string(REPLACE "," ";" _requested "${QPARITY_ISAS}")
if(_requested STREQUAL "all")
  set(_requested ${_available})
elseif(_requested STREQUAL "native")
  qparity_read_cpuinfo_flags(_flags)
  qparity_cpu_isas("${CMAKE_SYSTEM_PROCESSOR}" "${_flags}" _requested)
endif()
set(_wanted scalar)
foreach(_isa IN LISTS _requested)
  if(NOT DEFINED QPARITY_ISA_${_isa}_ID)
    string(REPLACE ";" ", " _names "${QPARITY_ALL_ISAS}")
    message(FATAL_ERROR "QPARITY_ISAS: '${_isa}' is not an ISA of include/qparity/isa_list.h; "
                        "allowed: all, native, or names among ${_names}")
  endif()
  list(FIND _available ${_isa} _i)
  if(_i EQUAL -1)
    message(FATAL_ERROR "QPARITY_ISAS: ${_isa} cannot be built for ${CMAKE_SYSTEM_PROCESSOR} with "
                        "${CMAKE_CXX_COMPILER_ID}")
  endif()
  list(APPEND _wanted ${QPARITY_ISA_${_isa}_ANCESTORS})
endforeach()
set(QPARITY_COMPILED_ISAS "")
foreach(_isa IN LISTS QPARITY_ALL_ISAS)
  list(FIND _wanted ${_isa} _i)
  if(NOT _i EQUAL -1)
    list(APPEND QPARITY_COMPILED_ISAS ${_isa})
  endif()
endforeach()
string(REPLACE ";" ", " _names "${QPARITY_COMPILED_ISAS}")
message(STATUS "qparity: ISA paths compiled: ${_names}")

function(qparity_isa_sources target isa)
  set(_abs "")
  foreach(_src IN LISTS ARGN)
    get_filename_component(_src "${_src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND _abs "${_src}")
  endforeach()
  target_sources(${target} PRIVATE ${_abs})
  set(_defs "QPARITY_TARGET_ISA=k${QPARITY_ISA_${isa}_ID}")
  foreach(_a IN LISTS QPARITY_ISA_${isa}_ANCESTORS)
    list(APPEND _defs "QPARITY_TARGET_HAS_${_a}=1")
  endforeach()
  # Source file properties are scoped to a directory: TARGET_DIRECTORY makes them visible to the
  # target even when this is called from a subdirectory of the target's directory.
  set_source_files_properties(${_abs} TARGET_DIRECTORY ${target} PROPERTIES
                              COMPILE_OPTIONS "${QPARITY_ISA_${isa}_FLAGS}"
                              COMPILE_DEFINITIONS "${_defs}")
endfunction()

function(qparity_kernel_files pattern)
  foreach(_isa IN LISTS QPARITY_ALL_ISAS)
    string(REPLACE "@ISA@" "${_isa}" _src "${pattern}")
    set(_path "${PROJECT_SOURCE_DIR}/${_src}")
    if(NOT EXISTS "${_path}")
      continue()
    endif()
    # The families a file defines are the QPARITY_DEFINE_KERNELS(<Family>) in it: reconfigure when
    # the file changes, so that adding a definition registers it.
    set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_path}")
    file(STRINGS "${_path}" _defs REGEX "^QPARITY_DEFINE_KERNELS\\(")
    set(_families "")
    foreach(_d IN LISTS _defs)
      if(_d MATCHES "^QPARITY_DEFINE_KERNELS\\(([A-Za-z0-9_:]+)\\)")
        string(REGEX REPLACE "^.*::" "" _f "${CMAKE_MATCH_1}")
        list(APPEND _families ${_f})
      endif()
    endforeach()
    if(NOT _families)
      message(FATAL_ERROR "${_src} defines no kernels (no QPARITY_DEFINE_KERNELS(<Family>) line)")
    endif()
    foreach(_f IN LISTS _families)
      set_property(GLOBAL APPEND PROPERTY QPARITY_KERNEL_FAMILIES ${_f})
    endforeach()
    list(FIND QPARITY_COMPILED_ISAS ${_isa} _compiled)
    if(_compiled EQUAL -1)
      continue()
    endif()
    qparity_isa_sources(qparity ${_isa} "${_path}")
    get_filename_component(_stem "${_src}" NAME_WE)
    set_property(GLOBAL APPEND PROPERTY QPARITY_ISA_OBJECT_STEMS ${_stem})
    foreach(_f IN LISTS _families)
      set_property(GLOBAL APPEND PROPERTY QPARITY_KERNEL_FAMILY_${_f} ${_isa})
    endforeach()
  endforeach()
endfunction()

# The bit of an ISA as a C++ expression.
function(_qparity_isa_mask_expr isas out)
  set(_expr "0u")
  foreach(_isa IN LISTS isas)
    string(APPEND _expr " | static_cast<::qparity::IsaMask>(::qparity::Isa::k${QPARITY_ISA_${_isa}_ID})")
  endforeach()
  set(${out} "(${_expr})" PARENT_SCOPE)
endfunction()

function(qparity_write_isa_header)
  set(_dir ${PROJECT_BINARY_DIR}/qparity_generated)
  _qparity_isa_mask_expr("${QPARITY_COMPILED_ISAS}" _compiled)
  set(_text "// Generated by cmake/QparityIsas.cmake from include/qparity/isa_list.h and the kernel\n")
  string(APPEND _text "// files (qparity_kernel_files). Do not edit. Include after qparity/isa.h.\n")
  string(APPEND _text "#pragma once\n\n#include \"qparity/isa.h\"\n\n")
  string(APPEND _text "/// The ISA paths this build compiles.\n")
  string(APPEND _text "#define QPARITY_COMPILED_ISA_MASK ${_compiled}\n\n")
  get_property(_families GLOBAL PROPERTY QPARITY_KERNEL_FAMILIES)
  list(REMOVE_DUPLICATES _families)
  list(SORT _families)
  foreach(_f IN LISTS _families)
    get_property(_isas GLOBAL PROPERTY QPARITY_KERNEL_FAMILY_${_f})
    _qparity_isa_mask_expr("${_isas}" _mask)
    string(REPLACE ";" ", " _names "${_isas}")
    string(APPEND _text "/// Kernel family ${_f}: ${_names}\n")
    string(APPEND _text "#define QPARITY_KERNEL_ISAS_${_f} ${_mask}\n")
  endforeach()
  file(WRITE ${_dir}/qparity_build_isas.h.tmp "${_text}")
  configure_file(${_dir}/qparity_build_isas.h.tmp ${_dir}/qparity_build_isas.h COPYONLY)
  target_include_directories(qparity PRIVATE ${_dir})
  get_property(_stems GLOBAL PROPERTY QPARITY_ISA_OBJECT_STEMS)
  set(QPARITY_ISA_OBJECT_STEMS "${_stems}" PARENT_SCOPE)
endfunction()
