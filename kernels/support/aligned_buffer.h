// INTERNAL: the one 64-byte aligned buffer of the project (the kernels' packed operands and
// scratch memory, the benchmarks' and oracle tests' arrays, the peers' storage). Not installed.
//
// 64 bytes: one cache line, one AVX-512 register; AMX tile loads and aligned vector loads want it,
// and a benchmark or oracle hands every implementation buffers aligned alike, so that no peer is
// measured (or tested) on a misaligned path the others do not take.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace qparity {
namespace internal {

inline constexpr std::size_t kBufferAlignment = 64;

/// An array of trivially copyable T whose storage starts on a kBufferAlignment boundary and is a
/// whole number of alignment units (a vector access to the last unit stays inside it).
///
/// Constructed with a size, the elements are zero. resize() is for scratch memory reused across
/// calls: it never shrinks the allocation, and when it has to grow it neither copies nor zeroes
/// (the contents are then unspecified); within the capacity it keeps them.
template <class T>
class AlignedBuffer {
  static_assert(std::is_trivially_copyable<T>::value, "AlignedBuffer copies and zeroes bytes");
  static_assert(alignof(T) <= kBufferAlignment, "AlignedBuffer's alignment is kBufferAlignment");

 public:
  AlignedBuffer() = default;
  /// `size` zero elements.
  explicit AlignedBuffer(std::size_t size) {
    allocate(size);
    std::memset(static_cast<void*>(data_.get()), 0, capacity_ * sizeof(T));
  }
  /// A copy of `values`.
  explicit AlignedBuffer(const std::vector<T>& values) : AlignedBuffer(values.size()) {
    if (!values.empty()) std::memcpy(data_.get(), values.data(), values.size() * sizeof(T));
  }

  /// size() becomes `size`; see the class comment for the contents.
  void resize(std::size_t size) {
    if (size <= capacity_) {
      size_ = size;
      return;
    }
    allocate(size);
  }

  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return data_.get()[i]; }
  const T& operator[](std::size_t i) const { return data_.get()[i]; }

 private:
  void allocate(std::size_t size) {
    // std::aligned_alloc wants a non-zero multiple of the alignment.
    std::size_t bytes = (size * sizeof(T) + kBufferAlignment - 1) / kBufferAlignment;
    bytes *= kBufferAlignment;
    if (bytes == 0) bytes = kBufferAlignment;
    void* p = std::aligned_alloc(kBufferAlignment, bytes);
    if (p == nullptr) throw std::bad_alloc();
    data_.reset(static_cast<T*>(p));
    capacity_ = bytes / sizeof(T);
    size_ = size;
  }

  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, Free> data_;
  std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace internal
}  // namespace qparity
