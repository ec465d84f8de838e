// The one list of instruction-set paths. Everything that enumerates ISAs is derived from it: the
// Isa enum and its names (isa.h), the CPU requirements of each path (kernels/dispatch), the compile
// flags and the per-ISA kernel files CMake builds (cmake/QparityIsas.cmake parses this file), the
// kernel registry's fallback chain, the ODR guard, the ISA-coverage checks of the tests, the
// benchmarks' rows and CI's expectation of which paths a CPU must run (cmake/print_cpu_isas.cmake).
//
// X(Enumerator, name, bit, Parent, arch, "flags", "cpu features", "description")
//   Enumerator    Isa::k<Enumerator>
//   name          the lower-case name users see (QPARITY_ISA=avx2, qparity::to_string, file names:
//                 a kernel family's file for this ISA is e.g. kernels/gemm/ukernel_<name>.cc)
//   bit           the enum's bit; a higher bit is a more capable path (active_isa() picks the
//                 highest enabled one); never reuse a bit
//   Parent        the path this one extends: it needs the parent's CPU features and compile flags
//                 too, and where it has no kernel of its own for an operation, the parent's (and
//                 so on up to Scalar) runs
//   arch          the processors it exists on: any, x86 (x86-64 and i386 with GCC or Clang),
//                 aarch64
//   "flags"       GCC / Clang flags added to the parent's for this ISA's translation units
//   "cpu features" CPU features added to the parent's, named as Linux's /proc/cpuinfo names them;
//                 the library detects them itself (kernels/dispatch/cpu_features.cc)
//
// Each entry is one line: CMake reads the list with a regular expression.
#pragma once

// clang-format off
#define QPARITY_ISA_LIST(X) \
  X(Scalar, scalar, 0, Scalar, any, "", "", "portable C++ (the reference formulas, compiled for the baseline)") \
  X(Sse41, sse41, 1, Scalar, x86, "-msse4.1", "sse4_1", "SSE4.1") \
  X(Avx2, avx2, 2, Sse41, x86, "-mavx2 -mbmi2 -mfma", "avx2 bmi2 fma", "AVX2 + BMI2 + FMA") \
  X(AvxVnni, avxvnni, 3, Avx2, x86, "-mavxvnni", "avx_vnni", "AVX2 + AVX-VNNI (VEX VPDPBUSD, Alder Lake, Zen 5)") \
  X(Avx512, avx512, 4, Avx2, x86, "-mavx512f -mavx512bw -mavx512dq -mavx512vl", "avx512f avx512bw avx512dq avx512vl", "AVX-512 F+BW+DQ+VL (Skylake-X level)") \
  X(Avx512Vnni, avx512vnni, 5, Avx512, x86, "-mavx512vnni", "avx512_vnni", "AVX-512 VNNI (Cascade Lake, Zen 4)") \
  X(Amx, amx, 6, Avx512Vnni, x86, "-mamx-tile -mamx-int8", "amx_tile amx_int8", "AMX-TILE + AMX-INT8, with the OS permission for the tile state")
// clang-format on
