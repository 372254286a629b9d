// The SM's cluster side: distributed shared memory (ld/st/atom .shared::cluster) and the
// cluster barrier. A DSMEM access is split by target CTA: lanes aimed at this CTA's own window
// take the shared pipe's latency, every other target is one exchange over the GPC's SM-to-SM
// network (GlobalPort::remote_shared), and the warp resumes when the last part completes.
#include <fmt/format.h>

#include <array>
#include <cstring>

#include "core/sm.h"
#include "core/sm_state.h"

namespace xpusim::core {

using kernel::OpKind;

Status Sm::check_dsmem(WarpSlot& w) const {
  const kernel::Op& op = w.op;
  const ClusterContext& k = *w.cta.cluster;
  for (std::uint32_t l = 0; l < kernel::kWarpSize; ++l) {
    if (((op.mask >> l) & 1) == 0) continue;
    const kernel::Addr a = (*op.addr)[l];
    const std::uint32_t rank = kernel::cluster_rank_of(a);
    const std::uint32_t off = kernel::cluster_offset_of(a);
    if (rank >= k.size()) {  // seed1: a CGA's shared memory is reachable only inside it
      const kernel::Dim3& id = w.warp.coords().cluster_id;
      return Error{fmt::format(
          "DSMEM lane {} address {:#x}: rank {} is outside its CGA (cluster ({},{},{}) of {} "
          "CTA(s))",
          l, a, rank, id.x, id.y, id.z, k.size())};
    }
    const ClusterContext::Rank& r = k.ranks[rank];
    if (r.smem == nullptr) {
      return Error{
          fmt::format("DSMEM lane {}: the CTA of rank {} is {} (cluster.sync before "
                      "DSMEM accesses and before exiting)",
                      l, rank, r.exited ? "gone (it exited)" : "not running yet")};
    }
    if (off % op.bytes != 0) {
      return Error{
          fmt::format("DSMEM lane {} offset {:#x} is not {}-byte aligned", l, off, op.bytes)};
    }
    if (auto st = r.smem->check_range(off, op.bytes); !st) {
      return Error{fmt::format("DSMEM lane {} (rank {}): {}", l, rank, st.error().message)};
    }
  }
  return Ok{};
}

namespace {

template <class T>
void atomic_add(mem::SharedMemory& smem, std::uint32_t off, std::byte* lane) {
  T old = 0, add = 0;
  std::memcpy(&old, smem.bytes().data() + off, sizeof(T));
  std::memcpy(&add, lane, sizeof(T));
  const T sum = static_cast<T>(old + add);
  std::memcpy(smem.bytes().data() + off, &sum, sizeof(T));
  std::memcpy(lane, &old, sizeof(T));
}

}  // namespace

Status Sm::apply_dsmem(WarpSlot& w) {
  const kernel::Op& op = w.op;
  ClusterContext& k = *w.cta.cluster;
  for (std::uint32_t l = 0; l < kernel::kWarpSize; ++l) {
    if (((op.mask >> l) & 1) == 0) continue;
    const kernel::Addr a = (*op.addr)[l];
    mem::SharedMemory& smem = *k.ranks[kernel::cluster_rank_of(a)].smem;
    const std::uint32_t off = kernel::cluster_offset_of(a);
    std::byte* lane = op.data + std::size_t{l} * op.bytes;
    Status st = Ok{};
    switch (op.kind) {
      case OpKind::kLoadDsmem:
        st = smem.read(off, {lane, op.bytes});
        break;
      case OpKind::kStoreDsmem:
        st = smem.write(off, {lane, op.bytes});
        break;
      default:  // lanes on one address apply in lane order
        if (op.bytes == 4) {
          atomic_add<std::uint32_t>(smem, off, lane);
        } else {
          atomic_add<std::uint64_t>(smem, off, lane);
        }
    }
    if (!st) return Error{fmt::format("DSMEM lane {}: {}", l, st.error().message)};
  }
  return Ok{};
}

void Sm::dsmem_op(WarpSlot& w, std::uint64_t cycle) {
  const kernel::Op& op = w.op;
  const ClusterContext& k = *w.cta.cluster;
  dsmem_accesses_.inc();
  // Bytes per target rank (a cluster has at most a few dozen CTAs: a small table).
  std::array<std::uint32_t, 64> bytes{};
  XPUSIM_CHECK(k.size() <= bytes.size(), "clusters of at most 64 CTAs");
  for (std::uint32_t l = 0; l < kernel::kWarpSize; ++l) {
    if ((op.mask >> l) & 1) bytes[kernel::cluster_rank_of((*op.addr)[l])] += op.bytes;
  }
  stall(w, StallReason::kMemory);
  const SmTiming& t = cfg_.timing;
  const GlobalPort::Remote kind = op.kind == OpKind::kLoadDsmem    ? GlobalPort::Remote::kLoad
                                  : op.kind == OpKind::kStoreDsmem ? GlobalPort::Remote::kStore
                                                                   : GlobalPort::Remote::kAtomic;
  w.pending = 1;  // held until every part is sent, so a part completing at once cannot wake
  for (std::uint32_t rank = 0; rank < k.size(); ++rank) {
    if (bytes[rank] == 0) continue;
    const Sm& target = *k.ranks[rank].sm;
    ++w.pending;
    if (&target == this) {
      events().post(clock_.edge(cycle + t.lsu_issue_cycles + t.shared_latency),
                    [this, &w] { part_done(w); });
    } else {
      port_.remote_shared(cfg_.id, target.id(), kind, bytes[rank], [this, &w] { part_done(w); });
    }
  }
  part_done(w);
}

void Sm::part_done(WarpSlot& w) {
  if (--w.pending == 0) wake(w, cycle_now());
}

void Sm::cluster_sync(WarpSlot& w) {
  ClusterContext& k = *w.cta.cluster;
  cluster_syncs_.inc();
  stall(w, StallReason::kBarrier);
  ++k.arrived;
  k.waiting.emplace_back(this, &w.warp);
  if (k.barrier_complete()) release_cluster(k);
}

void Sm::release_cluster(ClusterContext& k) {
  auto waiting = std::move(k.waiting);
  k.waiting.clear();
  k.arrived = 0;
  for (auto& [sm, warp] : waiting)
    sm->release(*warp, sm->cycle_now() + sm->cfg_.timing.cluster_barrier_latency);
}

}  // namespace xpusim::core
