// The replaced global operator new / delete of failing_new.h. In a file of their own: where GCC
// inlines them next to std::allocator it warns about free() on operator new's memory.
#include "failing_new.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> g_fail{false};
}  // namespace

void qparity_test::set_allocations_fail(bool fail) { g_fail.store(fail); }

void* operator new(std::size_t size) {
  if (g_fail.load(std::memory_order_relaxed)) throw std::bad_alloc();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
