// INTERNAL: the Linux per-process permission to use the AMX tile data state.
//
// Why this exists: since Linux 5.16 a process must ask for the AMX tile data state (XTILEDATA,
// XCR0 bit 18) with arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) before its first tile
// instruction. The state is large (8 KiB per thread, in every context switch and signal frame), so
// the kernel keeps it disabled per process through XFD even though XCR0 reports it enabled: CPUID
// and XGETBV both say "AMX", yet an unrequested TILELOADD traps and the process dies with SIGILL.
// A kernel without the request (before 5.16) fails the call, and one may refuse it (e.g. when a
// thread's sigaltstack is too small for the larger signal frame); AMX is then not supported and
// the dispatcher falls back to the next path, never a crash.
//
// Header-only: one small function with one caller (isa.cc, through isa_levels.h's
// supported_isa_levels, which the tests drive with a refusing stand-in).
#pragma once

#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace qparity {
namespace internal {

/// Requests the permission on the first call (thread-safe) and returns the cached outcome: true
/// only if the kernel granted it. The permission is per process, so one request covers every
/// thread. Call it only when CPUID and XCR0 report AMX: the request has process-wide effects
/// (larger signal frames for every thread), which a process that cannot use AMX should not get.
inline bool amx_permission_granted() {
#if defined(__linux__) && defined(__x86_64__)
  static const bool granted = [] {
    // The values of <asm/prctl.h> and the kernel's xstate numbering, spelled out so that this
    // builds with kernel headers older than 5.16 (the running kernel is what decides).
    constexpr long kArchReqXcompPerm = 0x1023;  // ARCH_REQ_XCOMP_PERM
    constexpr long kXfeatureXtiledata = 18;     // XFEATURE_XTILEDATA
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
  }();
  return granted;
#else
  // AMX is 64-bit only, and other systems' way of enabling tile data is not implemented here:
  // reporting AMX unsupported is the safe answer.
  return false;
#endif
}

}  // namespace internal
}  // namespace qparity
