#include "fabric/buffer_memory.h"

#include <fmt/format.h>

namespace xpusim::fabric {

namespace {
__extension__ using u128 = unsigned __int128;  // layout sums of 64-bit sizes may overflow

bool overlaps(QueueRange a, QueueRange b) {
  return a.start < b.stop && b.start < a.stop;
}
}  // namespace

BufferMemory::BufferMemory(std::uint64_t bytes, std::uint64_t unit, std::uint32_t ports,
                           std::uint32_t vcs)
    : bytes_(bytes), unit_(unit), ports_(ports), vcs_(vcs) {
  XPUSIM_CHECK(unit > 0, "buffer memory allocation unit must be non-zero");
  q_.resize(queues());
}

std::string BufferMemory::queue_name(std::uint32_t q) const {
  XPUSIM_CHECK(q < queues(), "queue id out of range");
  if (q < ports_ * vcs_) return fmt::format("port{}.vc{}", q / vcs_, q % vcs_);
  if (q < ports_ * vcs_ + ports_) return fmt::format("outbound{}", q - ports_ * vcs_);
  return "inbound";
}

Status BufferMemory::program(std::uint32_t queue, QueueRange r) {
  if (queue >= queues()) {
    return Error{fmt::format("buffer: queue id {} out of range ({} queues)", queue, queues())};
  }
  const std::string name = queue_name(queue);
  std::vector<Error> errors;
  // seed4 ¶63, 508-514: moving a queue that holds packets would lose or corrupt them.
  if (q_[queue].used > 0) {
    errors.push_back({fmt::format(
        "buffer: {} holds {} B; a queue is re-programmed only when drained (seed4 ¶63)", name,
        q_[queue].used)});
  }
  if (r.stop < r.start) {
    errors.push_back(
        {fmt::format("buffer: {} stop {:#x} is below its start {:#x}", name, r.stop, r.start)});
  }
  if (r.start % unit_ != 0 || r.stop % unit_ != 0) {
    errors.push_back(
        {fmt::format("buffer: {} range [{:#x}, {:#x}) is not aligned to the {} B "
                     "allocation unit",
                     name, r.start, r.stop, unit_)});
  }
  // Exclusive stop: a range ending at bytes() fits; so does a zero-size range placed there.
  if (r.start > bytes_ || r.stop > bytes_) {
    errors.push_back({fmt::format("buffer: {} range [{:#x}, {:#x}) is outside the {} B memory",
                                  name, r.start, r.stop, bytes_)});
  }
  // Zero-size ranges hold nothing, so they overlap nothing (seed4 §5 item 3: start = stop).
  if (r.stop > r.start) {
    for (std::uint32_t o = 0; o < queues(); ++o) {
      const QueueRange other = q_[o].range;
      if (o == queue || other.stop <= other.start || !overlaps(r, other)) continue;
      errors.push_back(
          {fmt::format("buffer: {} range [{:#x}, {:#x}) overlaps {} [{:#x}, {:#x})", name, r.start,
                       r.stop, queue_name(o), other.start, other.stop)});
    }
  }
  if (!errors.empty()) return errors;
  q_[queue] = Queue{r, r.start, r.start, 0};
  return Ok{};
}

Status BufferMemory::program_layout(const Allocation& a, std::uint64_t outbound_bytes,
                                    std::uint64_t inbound_bytes) {
  std::vector<Error> errors;
  if (a.port_bytes.size() != ports_ || a.vc_bytes.size() != ports_) {
    return Error{fmt::format("buffer: allocation has {} ports ({} VC lists); the memory has {}",
                             a.port_bytes.size(), a.vc_bytes.size(), ports_)};
  }
  for (std::uint32_t q = 0; q < queues(); ++q) {
    if (q_[q].used > 0) {
      errors.push_back({fmt::format(
          "buffer: {} holds {} B; the layout is re-programmed only when drained (seed4 ¶63)",
          queue_name(q), q_[q].used)});
    }
  }
  const auto aligned = [&](std::uint64_t b, const std::string& what) {
    if (b % unit_ != 0) {
      errors.push_back(
          {fmt::format("buffer: {} of {} B is not a multiple of the {} B unit", what, b, unit_)});
    }
  };
  aligned(outbound_bytes, "outbound queue size");
  aligned(inbound_bytes, "inbound queue size");
  u128 total = inbound_bytes;
  for (std::uint32_t p = 0; p < ports_; ++p) {
    if (a.vc_bytes[p].size() != vcs_) {
      errors.push_back(
          {fmt::format("buffer: allocation port {} has {} VC sizes; the memory has "
                       "{} VCs per port",
                       p, a.vc_bytes[p].size(), vcs_)});
      continue;
    }
    // Only a port that is allocated receive queues sends traffic out of this chip.
    if (a.port_bytes[p] > 0) total += outbound_bytes;
    u128 port_sum = 0;
    for (std::uint32_t vc = 0; vc < vcs_; ++vc) {
      aligned(a.vc_bytes[p][vc], queue_name(port_queue(p, vc)) + " size");
      port_sum += a.vc_bytes[p][vc];
    }
    if (port_sum != a.port_bytes[p]) {
      errors.push_back({fmt::format("buffer: allocation port {} has {} B but its VCs sum to {} B",
                                    p, a.port_bytes[p], static_cast<std::uint64_t>(port_sum))});
    }
    total += port_sum;
  }
  if (total > bytes_) {
    errors.push_back({fmt::format("buffer: the layout needs {} B; the memory has {} B",
                                  static_cast<std::uint64_t>(total), bytes_)});
  }
  if (!errors.empty()) return errors;
  // Validated as a whole, so the queues are written directly: one at a time through program()
  // would refuse transient overlaps with the old layout.
  std::uint64_t addr = 0;
  const auto place = [&](std::uint32_t q, std::uint64_t size) {
    q_[q] = Queue{{addr, addr + size}, addr, addr, 0};
    addr += size;
  };
  for (std::uint32_t p = 0; p < ports_; ++p) {
    place(outbound_queue(p), a.port_bytes[p] > 0 ? outbound_bytes : 0);
  }
  place(inbound_queue(), inbound_bytes);
  for (std::uint32_t p = 0; p < ports_; ++p) {
    for (std::uint32_t vc = 0; vc < vcs_; ++vc)
      place(port_queue(p, vc), a.vc_bytes[p][vc]);
  }
  return Ok{};
}

bool BufferMemory::drained() const {
  for (const Queue& s : q_) {
    if (s.used > 0) return false;
  }
  return true;
}

}  // namespace xpusim::fabric
