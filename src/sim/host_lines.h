// Storage aligned to the host's 64 B cache lines. A per-set array of a cache model (a set's
// 16 tags are 128 B) from an ordinary 16 B aligned vector straddles one host line more than it
// fills, and each set lookup then misses once more (docs/performance.md, "Host techniques").
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace xpusim::sim {

inline constexpr std::size_t kHostLineBytes = 64;

template <class T>
struct Align64Allocator {
  using value_type = T;
  Align64Allocator() = default;
  template <class U>
  Align64Allocator(const Align64Allocator<U>&) {}  // NOLINT(google-explicit-constructor)
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{kHostLineBytes}));
  }
  void deallocate(T* p, std::size_t) { ::operator delete (p, std::align_val_t{kHostLineBytes}); }
  friend bool operator==(const Align64Allocator&, const Align64Allocator&) { return true; }
};

// A vector whose first element starts a host cache line.
template <class T>
using HostLineVector = std::vector<T, Align64Allocator<T>>;

}  // namespace xpusim::sim
