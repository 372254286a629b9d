// Host: the host-side runtime API (HSA runtime analogue of hsa_queue_create and the AQL
// producer protocol), plus TaskGraph, which turns a recorded kernel sequence into seed3
// reference packets (first launch) and condensed packets (every replay).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cp/condensed.h"
#include "cp/packets.h"
#include "cp/queue.h"
#include "mem/global_memory.h"
#include "sim/result.h"

namespace xpusim::cp {

// A fixed sequence of kernel launches recorded once and replayed many times (seed3 ¶66: the
// Kripke loop LTimes -> Scattering -> Source -> LPlusTimes -> Sweep -> Population).
//
// RST slots (seed3 ¶90: 8 entries) are assigned in launch order: a launch identical to an
// existing reference reuses it; otherwise it gets the next free slot while one is left. The
// first launch sends a reference packet (is_reference, ref_num = slot) for each launch that took
// a new slot and a plain dispatch for the rest. A graph with more than 8 distinct launches
// still works: every diff_vector covers all 13 fields, so launches 9+ are sent as a diff
// against whichever reference makes the diff smallest.
//
// Replay packs the kernels, in order, greedily into condensed packets of 31 slots (seed3
// Table 4); a kernel that does not fit starts the next packet, so a long graph, or one with
// big diffs (e.g. a new kernarg and completion signal per kernel: 9 slots, 3 per packet), is
// split across several condensed packets, launched back to back. One kernel needs at most
// 1 + 27 slots, so it always fits one packet.
//
// Replay assumes the RST still holds this graph's references (slots 0..references-1 on the
// agent that ran the first launch); nothing else may overwrite them in between.
class TaskGraph {
 public:
  // Errors: no launches; a launch that fails validate(), is already a reference packet, or has
  // reserved2 != 0 (HSA: must be 0; not diffable, so a replay could not reproduce it).
  static Result<TaskGraph> record(std::vector<DispatchPacket> launches);

  std::size_t kernels() const { return launches_.size(); }
  std::size_t references() const { return references_.size(); }
  const std::vector<DispatchPacket>& launches() const { return launches_; }
  // The RST contents the first launch leaves behind, indexed by ref_num.
  const std::vector<DispatchPacket>& reference_entries() const { return references_; }
  // RST slot each launch is diffed against.
  std::uint8_t ref_of(std::size_t kernel) const { return ref_of_[kernel]; }

  // The first launch: one dispatch packet per kernel, reference packets where a slot is filled.
  std::vector<DispatchPacket> first_launch() const;
  // The condensed packets that relaunch the recorded graph unchanged.
  std::vector<CondensedPacket> replay() const;
  // Same, for launches that differ per iteration (e.g. new completion signals or kernargs).
  // Errors: a different kernel count, or a launch `record` would reject.
  Result<std::vector<CondensedPacket>> replay(std::span<const DispatchPacket> launches) const;

 private:
  TaskGraph() = default;
  std::vector<DispatchPacket> launches_;
  std::vector<DispatchPacket> references_;
  std::vector<std::uint8_t> ref_of_;
  std::vector<bool> fills_slot_;  // launch i sends the reference packet of its slot
};

class Host {
 public:
  // Rings are carved, in creation order, from simulated memory starting at `queue_region`.
  static constexpr mem::Addr kDefaultQueueRegion = mem::Addr{1} << 40;

  explicit Host(mem::GlobalMemory& memory, mem::Addr queue_region = kDefaultQueueRegion)
      : memory_(&memory), next_ring_(queue_region) {}

  // A new queue with the next id and its own ring. Errors: as AqlQueue::create.
  Result<AqlQueue> create_queue(std::uint32_t size);

  // The HSA producer sequence for one packet: reserve a slot, write bytes 2..63, publish
  // bytes 0..1 (the header; for a condensed packet type + num_kernels), ring the doorbell.
  // Returns the packet's index. Error, nothing written: header type INVALID (the slot would
  // never become ready and would stall the queue), or the queue's reserve() error. Other
  // malformed packets are the packet processor's to reject (HSA: a queue error).
  Result<std::uint64_t> submit(AqlQueue& queue, const PacketBytes& packet);
  // Several packets, all slots reserved up front (all or nothing), one doorbell for the last.
  // Returns the first index. Error: an empty list, or as submit().
  Result<std::uint64_t> submit_all(AqlQueue& queue, std::span<const PacketBytes> packets);

  // Typed helpers: validate, encode, submit. Errors: the encoder's rule, or as submit().
  Result<std::uint64_t> submit(AqlQueue& queue, const DispatchPacket& packet);
  Result<std::uint64_t> submit(AqlQueue& queue, const BarrierPacket& packet);
  Result<std::uint64_t> submit(AqlQueue& queue, const CondensedPacket& packet);

  // The graph's first launch / one replay, as one all-or-nothing batch. Returns the first index.
  Result<std::uint64_t> launch_first(AqlQueue& queue, const TaskGraph& graph);
  Result<std::uint64_t> launch_replay(AqlQueue& queue, const TaskGraph& graph);

 private:
  mem::GlobalMemory* memory_;
  mem::Addr next_ring_;
  std::uint32_t next_id_ = 0;
};

}  // namespace xpusim::cp
