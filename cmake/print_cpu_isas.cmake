# Prints the ISA paths (include/qparity/isa_list.h) this machine's CPU has according to Linux's
# /proc/cpuinfo, comma-separated ("scalar,sse41,avx2,avx512,avx512vnni"). CI exports it as
# QPARITY_EXPECT_ISAS so that a path the CPU has but the library failed to compile or detect (with
# its own CPUID reading) fails the tests instead of being skipped.
# Usage: cmake -P cmake/print_cpu_isas.cmake
#
# AMX also needs the per-process permission for the tile data state (Linux 5.16+), which cpuinfo
# cannot show: a machine whose cpuinfo lists amx_tile and amx_int8 but whose kernel refuses the
# permission fails the expectation, deliberately (the AMX path would be silently missing there).
cmake_minimum_required(VERSION 3.18)
get_filename_component(_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
include("${CMAKE_CURRENT_LIST_DIR}/QparityIsaList.cmake")
qparity_read_isa_list("${_root}/include/qparity/isa_list.h")
execute_process(COMMAND uname -m OUTPUT_VARIABLE _processor OUTPUT_STRIP_TRAILING_WHITESPACE)
qparity_read_cpuinfo_flags(_flags)
qparity_cpu_isas("${_processor}" "${_flags}" _isas)
string(REPLACE ";" "," _out "${_isas}")
execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${_out}")
