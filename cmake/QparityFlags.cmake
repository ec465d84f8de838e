# Compiler flags shared by every qparity target, and per-ISA flags for SIMD translation units.

# Why -ffp-contract=off: the F32 policies reproduce float32 arithmetic one rounding at a time; a
# fused multiply-add would change their bits (see include/qparity/policy_float.h).
function(qparity_target_flags target)
  target_compile_features(${target} PRIVATE cxx_std_17)
  set_target_properties(${target} PROPERTIES CXX_EXTENSIONS OFF)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -ffp-contract=off)
    if(QPARITY_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
    if(QPARITY_SANITIZE)
      target_compile_options(${target} PRIVATE -fsanitize=${QPARITY_SANITIZE} -fno-omit-frame-pointer
                                               -fno-sanitize-recover=all)
      target_link_options(${target} PRIVATE -fsanitize=${QPARITY_SANITIZE})
    endif()
  endif()
endfunction()

# The compiler flags of each ISA path. Names match qparity::Isa (include/qparity/isa.h).
set(QPARITY_ISA_FLAGS_scalar "")
set(QPARITY_ISA_FLAGS_sse41 "-msse4.1")
set(QPARITY_ISA_FLAGS_avx2 "-mavx2;-mbmi2")
set(QPARITY_ISA_FLAGS_avx512 "-mavx512f;-mavx512bw;-mavx512dq;-mavx512vl;-mavx2;-mbmi2")
set(QPARITY_ISA_FLAGS_avxvnni "-mavx2;-mbmi2;-mavxvnni")
set(QPARITY_ISA_FLAGS_avx512vnni "-mavx512f;-mavx512bw;-mavx512dq;-mavx512vl;-mavx512vnni;-mavx2;-mbmi2")
set(QPARITY_ISA_FLAGS_amx "-mavx512f;-mavx512bw;-mavx512dq;-mavx512vl;-mavx512vnni;-mavx2;-mbmi2;-mamx-tile;-mamx-int8")

# qparity_isa_sources(<target> <isa> <sources...>): adds sources to target, compiled with the ISA's
# flags. Each ISA has its own translation units so that no ISA-specific code leaks into code that
# runs on every CPU (the dispatcher is compiled for the baseline).
# Source file properties are scoped to a directory: TARGET_DIRECTORY makes them visible to the
# target even when this is called from a subdirectory (e.g. rounding/) of the target's directory.
function(qparity_isa_sources target isa)
  set(_abs "")
  foreach(_src IN LISTS ARGN)
    get_filename_component(_src "${_src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND _abs "${_src}")
  endforeach()
  target_sources(${target} PRIVATE ${_abs})
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    set_source_files_properties(${_abs} TARGET_DIRECTORY ${target}
                                PROPERTIES COMPILE_OPTIONS "${QPARITY_ISA_FLAGS_${isa}}")
  endif()
endfunction()
