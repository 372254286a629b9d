#include "core/hierarchy_port.h"

#include "mem/coalescer.h"
#include "sim/prefetch.h"

namespace xpusim::core {

void HierarchyPort::access(std::uint32_t sm, const kernel::Op& op, kernel::LaneMask active,
                           std::function<void()> done, const void* hint) {
  std::array<mem::LineRequest, mem::kMaxLinesPerAccess>& lines = lines_scratch_;
  const mem::AddressMapParams& map = mem_.params().map;
  const std::uint32_t n =
      mem::coalesce_into(*op.addr, op.bytes, active, lines, map.line_bytes, map.sector_bytes);
  if (n == 0) {  // no active lane: the instruction still takes the L1's turn
    mem_.events().post(mem_.now(), std::move(done));
    return;
  }
  std::uint32_t slot = 0;
  if (free_.empty()) {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_.back();
    free_.pop_back();
  }
  lines_ += n;
  const bool store = op.kind == kernel::OpKind::kStoreGlobal;
  if (mem_.batches_accesses()) {  // one completion for the whole access
    slots_[slot] = {.pending = 1, .hint = hint, .done = std::move(done)};
    const std::span<const mem::LineRequest> all(lines.data(), n);
    if (store) {
      mem_.store_lines(sm, all, *this, slot);
    } else {
      for (std::uint32_t i = 1; i < n; ++i)
        mem_.prefetch_load(lines[i].line_addr);
      mem_.load_lines(sm, all, *this, slot);
    }
    return;
  }
  slots_[slot] = {.pending = n, .hint = hint, .done = std::move(done)};
  for (std::uint32_t i = 0; i < n; ++i) {
    const mem::MemRequest r = lines[i].to_request(sm, store);
    if (store) {
      mem_.store(r, *this, slot);
    } else {
      mem_.load(r, *this, slot);
    }
  }
}

void HierarchyPort::request_done(std::uint64_t tag) {
  const auto slot = static_cast<std::uint32_t>(tag);
  Access& a = slots_[slot];
  if (--a.pending > 0) return;
  std::function<void()> done = std::move(a.done);
  a.done = nullptr;
  free_.push_back(slot);
  done();
}

void HierarchyPort::prefetch_done(std::uint64_t tag) const {
  // The slot, then what its `done` touches (read from the slot: the line is needed anyway).
  const Access& a = slots_[static_cast<std::uint32_t>(tag)];
  sim::prefetch(&a);
  if (a.hint != nullptr) sim::prefetch(a.hint);
}

void HierarchyPort::remote_shared(std::uint32_t from_sm, std::uint32_t to_sm, Remote kind,
                                  std::uint32_t bytes, std::function<void()> done) {
  mem::DsmemNetwork& net = mem_.dsmem();
  switch (kind) {
    case Remote::kLoad:
      net.load(from_sm, to_sm, bytes, std::move(done));
      return;
    case Remote::kStore:
      net.store(from_sm, to_sm, bytes, std::move(done));
      return;
    case Remote::kAtomic:
      net.atomic(from_sm, to_sm, bytes, std::move(done));
      return;
  }
}

void HierarchyPort::remote_push(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes,
                                std::function<void()> arrived) {
  mem_.dsmem().push(from_sm, to_sm, bytes, std::move(arrived), [] {});
}

}  // namespace xpusim::core
