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
