// HierarchyPort: the SM's GlobalPort onto the memory-hierarchy timing model (src/mem). A warp
// access is coalesced into one request per 128 B line (its 32 B sectors, mem/coalescer.h);
// the lines go out at once and the warp's access completes when the last one has. DSMEM
// exchanges go to the GPC's SM-to-SM network.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/global_port.h"
#include "mem/memory_system.h"

namespace xpusim::core {

class HierarchyPort final : public GlobalPort, private mem::RequestClient {
 public:
  explicit HierarchyPort(mem::MemorySystem& memory) : mem_(memory) {}

  void access(std::uint32_t sm, const kernel::Op& op, kernel::LaneMask active,
              std::function<void()> done, const void* hint = nullptr) override;
  // The L1 set of the first active lane's line.
  void prefetch(std::uint32_t sm, const kernel::Op& op, kernel::LaneMask active) const override {
    if (active != 0) mem_.prefetch_l1(sm, (*op.addr)[std::countr_zero(active)]);
  }
  bool pin_l1(std::uint32_t sm, std::uint64_t addr) override { return mem_.pin_l1(sm, addr); }
  void unpin_l1(std::uint32_t sm, std::uint64_t addr) override { mem_.unpin_l1(sm, addr); }
  void remote_shared(std::uint32_t from_sm, std::uint32_t to_sm, Remote kind, std::uint32_t bytes,
                     std::function<void()> done) override;
  void remote_push(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes,
                   std::function<void()> arrived) override;

  std::uint64_t lines_requested() const { return lines_; }

 private:
  // A warp access in flight: lines outstanding and who to tell. Recycled through free_.
  struct Access {
    std::uint32_t pending = 0;
    const void* hint = nullptr;  // access()'s, prefetched with the slot before `done` runs
    std::function<void()> done;
  };
  // A line of the access in slot `tag` completed (the memory system calls back, no Done).
  void request_done(std::uint64_t tag) override;
  void prefetch_done(std::uint64_t tag) const override;

  mem::MemorySystem& mem_;
  std::vector<Access> slots_;
  // The coalescer's output, kept rather than a local: a local array of 64 LineRequests is
  // cleared (1 KiB) on every access, and coalesce_into writes each entry it returns.
  std::array<mem::LineRequest, mem::kMaxLinesPerAccess> lines_scratch_;
  std::vector<std::uint32_t> free_;
  std::uint64_t lines_ = 0;
};

}  // namespace xpusim::core
