// A zero-initialised array whose storage starts on a 64-byte boundary: one cache line, one
// AVX-512 register. Every buffer the peers own, and every buffer the benchmarks and oracle tests
// hand to them, is one of these, so that no peer is measured (or tested) on a misaligned path
// the others do not take.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

namespace qparity_peers {

inline constexpr std::size_t kBufferAlignment = 64;

template <class T>
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t size) : size_(size) {
    // aligned_alloc wants a multiple of the alignment, and a non-zero size.
    std::size_t bytes = size * sizeof(T);
    bytes = (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
    if (bytes == 0) bytes = kBufferAlignment;
    void* p = std::aligned_alloc(kBufferAlignment, bytes);
    if (p == nullptr) throw std::bad_alloc();
    std::memset(p, 0, bytes);
    data_.reset(static_cast<T*>(p));
  }
  /// A copy of `values`, aligned.
  explicit AlignedBuffer(const std::vector<T>& values) : AlignedBuffer(values.size()) {
    if (!values.empty()) std::memcpy(data_.get(), values.data(), values.size() * sizeof(T));
  }

  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return data_.get()[i]; }
  const T& operator[](std::size_t i) const { return data_.get()[i]; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::size_t size_ = 0;
  std::unique_ptr<T, Free> data_;
};

}  // namespace qparity_peers
