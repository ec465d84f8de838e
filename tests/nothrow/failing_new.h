// A replaceable global operator new that fails on request (failing_new.cc), so that tests can
// reach the kOutOfMemory path of the non-throwing API.
#pragma once

namespace qparity_test {

/// While `fail` is true every global operator new throws std::bad_alloc.
void set_allocations_fail(bool fail);

/// Allocations fail while one of these lives.
struct FailAllocations {
  FailAllocations() { set_allocations_fail(true); }
  ~FailAllocations() { set_allocations_fail(false); }
  FailAllocations(const FailAllocations&) = delete;
  FailAllocations& operator=(const FailAllocations&) = delete;
};

}  // namespace qparity_test
