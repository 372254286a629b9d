// Hopper's asynchronous data movement and transaction barriers: mbarrier.*, the
// cp.async.bulk family (TMA) handed to the SM's TMA unit as kernel::TmaOp, cp.async (LDGSTS),
// and the cluster address space (mapa, getctarank, .shared::cluster accesses over DSMEM).
#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <optional>

#include "ptx/interpreter.h"

namespace xpusim::ptx {
namespace {

using kernel::kWarpSize;
using kernel::LaneMask;

std::uint32_t first_lane(LaneMask m) {
  return static_cast<std::uint32_t>(std::countr_zero(m));
}

}  // namespace

// A 32-bit shared::cluster address: the CTA's rank + 1 in bits 24-31 (0: the executing CTA),
// its shared offset below (shared windows are far below 16 MiB).
std::uint64_t WarpInterpreter::cluster_shared(std::uint32_t rank, std::uint64_t offset) {
  return (std::uint64_t{rank + 1} << kClusterRankShift) | (offset & kClusterOffsetMask);
}

bool WarpInterpreter::split_cluster(std::uint64_t a, std::uint32_t& rank,
                                    std::uint32_t& offset) const {
  const std::uint64_t r = (a & 0xFFFF'FFFFu) >> kClusterRankShift;
  rank = r == 0 ? warp_.coords().cluster_rank : static_cast<std::uint32_t>(r - 1);
  offset = static_cast<std::uint32_t>(a & kClusterOffsetMask);
  return (a >> 32) == 0;
}

bool WarpInterpreter::uniform_shared(const Instruction& in, const Operand& a, LaneMask mask,
                                     std::uint32_t& offset, std::uint32_t* rank, Space forced) {
  Space space = Space::kNone;
  if (!resolve(in, a, mask, space, op_addr_, forced)) return false;
  if (space != Space::kShared && space != Space::kSharedCluster)
    return fail(in, "the address must be in shared memory");
  const std::uint64_t v = op_addr_[first_lane(mask)];
  bool same = true;
  for_lanes(mask, [&](std::uint32_t l) { same = same && op_addr_[l] == v; });
  if (!same)
    return fail(
        in,
        "the active lanes name different barriers or buffers (one per instruction is modelled)");
  std::uint32_t r = 0;
  if (!split_cluster(v, r, offset))
    return fail(in, fmt::format("shared address {:#x} is outside the window", v));
  if (rank != nullptr) {
    *rank = r;
  } else if (r != warp_.coords().cluster_rank) {
    return fail(in, "a shared::cta address of another CTA");
  }
  return true;
}

bool WarpInterpreter::exec_async(const Instruction& in, LaneMask m) {
  const auto A = [&](std::uint32_t k, std::uint32_t l) { return read(operand(in, k), l); };
  const std::uint32_t l0 = first_lane(m);
  switch (in.op) {
    case Opcode::kMapa: {
      // mapa[.shared::cluster].{u32,u64} d, a, rank: a's location in CTA `rank` of the cluster.
      const bool generic = in.space != Space::kSharedCluster;
      const std::uint32_t size = static_cast<std::uint32_t>(warp_.params().cluster.count());
      std::string bad;
      for_lanes(m, [&](std::uint32_t l) {
        const std::uint32_t rank = static_cast<std::uint32_t>(A(2, l));
        if (rank >= size && bad.empty())
          bad = fmt::format("lane {}: rank {} outside the cluster of {}", l, rank, size);
        std::uint64_t a = A(1, l);
        if (generic) a -= kSharedWindow;
        const std::uint64_t c = cluster_shared(rank, a);
        write(operand(in, 0), l, generic ? kSharedWindow + c : c);
      });
      if (!bad.empty()) return fail(in, bad);
      count_alu(in, 1);
      return true;
    }
    case Opcode::kGetctarank:
      for_lanes(m, [&](std::uint32_t l) {
        std::uint64_t a = A(1, l);
        if (in.space != Space::kSharedCluster) a -= kSharedWindow;
        std::uint32_t rank = 0, off = 0;
        split_cluster(a, rank, off);
        write(operand(in, 0), l, rank);
      });
      count_alu(in, 1);
      return true;
    case Opcode::kIsspacep:
      for_lanes(m, [&](std::uint32_t l) {
        const std::uint64_t a = A(1, l);
        const bool shared = a >= kSharedWindow && a < kSharedWindow + kWindowBytes;
        const bool local = a >= kLocalWindow && a < kLocalWindow + kWindowBytes;
        bool r = false;
        switch (in.space) {
          case Space::kShared:
            r = shared && ((a - kSharedWindow) >> kClusterRankShift) == 0;
            break;
          case Space::kSharedCluster:
            r = shared;
            break;
          case Space::kLocal:
            r = local;
            break;
          case Space::kGlobal:
            r = !shared && !local;
            break;
          default:
            r = false;
            break;
        }
        write(operand(in, 0), l, r ? 1 : 0);
      });
      count_alu(in, 1);
      return true;
    case Opcode::kMbarrier: {
      std::uint32_t mbar = 0, rank = 0;
      const std::uint32_t addr_at = in.sub == Sub::kInit || in.sub == Sub::kInval ||
                                            in.sub == Sub::kExpectTx || in.sub == Sub::kCompleteTx
                                        ? 0
                                        : 1;
      const bool arrive_no_state =
          in.sub == Sub::kArrive && operand(in, 0).kind == Operand::Kind::kAddr;
      const Operand& a = operand(in, arrive_no_state ? 0 : addr_at);
      if (!uniform_shared(in, a, m, mbar, &rank)) return false;
      const std::uint32_t lanes = static_cast<std::uint32_t>(std::popcount(m));
      const bool remote = rank != warp_.coords().cluster_rank;
      if (remote && in.sub != Sub::kArrive)
        return fail(in, "only mbarrier.arrive may name another CTA's barrier");
      op_in_ = &in;
      op_mask_ = m;
      switch (in.sub) {
        case Sub::kInit:
          op_ = kernel::Op{.kind = kernel::OpKind::kMbarInit,
                           .mask = m,
                           .count = static_cast<std::uint32_t>(A(1, l0)),
                           .mbar = mbar};
          return false;
        case Sub::kInval:
          op_in_ = nullptr;
          count_alu(in, 1);
          return true;
        case Sub::kArrive: {
          const std::uint32_t count_at = arrive_no_state ? 1 : 2;
          std::uint32_t count = lanes;
          std::uint32_t tx = 0;
          if (in.expect_tx) {
            tx = static_cast<std::uint32_t>(A(count_at, l0)) * lanes;
          } else if (in.count > count_at) {
            count = static_cast<std::uint32_t>(A(count_at, l0)) * lanes;
          }
          if (remote) {
            if (in.expect_tx)
              return fail(in,
                          "a remote arrive with expect_tx is not supported by this front end yet");
            op_ = kernel::Op{.kind = kernel::OpKind::kMbarArriveRemote,
                             .mask = m,
                             .count = count,
                             .mbar = mbar,
                             .rank = rank};
            return false;
          }
          // One arrive per active thread; expect_tx with a count: the op arrives once per lane.
          op_ = kernel::Op{.kind = kernel::OpKind::kMbarArrive,
                           .mask = m,
                           .count = count,
                           .mbar = mbar,
                           .tx_bytes = tx,
                           .value = &clock_value_};
          if (in.expect_tx && lanes != 1)
            return fail(
                in,
                "arrive.expect_tx by more than one thread is not supported by this front end yet");
          return false;
        }
        case Sub::kExpectTx:
        case Sub::kCompleteTx:
          op_ = kernel::Op{.kind = in.sub == Sub::kExpectTx ? kernel::OpKind::kMbarExpectTx
                                                            : kernel::OpKind::kMbarCompleteTx,
                           .mask = m,
                           .mbar = mbar,
                           .tx_bytes = static_cast<std::uint32_t>(A(1, l0)) * lanes};
          return false;
        case Sub::kTryWait:
        case Sub::kTestWait: {
          // The phase to wait for: .parity gives it; otherwise the state an arrive returned.
          std::uint64_t p = A(2, l0);
          if (!in.parity) {
            if ((p >> 63) == 0) return fail(in, "mbarrier wait on a state that no arrive returned");
            p &= 7;
          }
          // try_wait suspends the thread until the phase completes (we model no time limit, so it
          // always returns true); test_wait only looks.
          op_ = kernel::Op{.kind = in.sub == Sub::kTryWait ? kernel::OpKind::kMbarWait
                                                           : kernel::OpKind::kMbarTryWait,
                           .mask = m,
                           .mbar = mbar,
                           .parity = static_cast<std::uint32_t>(p & 1),
                           .result = &wait_result_};
          wait_result_ = true;
          return false;
        }
        default:
          return fail(in, "this mbarrier operation");
      }
    }
    case Opcode::kPrefetchTensormap: {
      Space space = Space::kNone;
      if (!resolve(in, operand(in, 0), m, space, op_addr_)) return false;
      tma_ =
          kernel::TmaOp{.kind = kernel::TmaKind::kPrefetchDescriptor, .descriptor = op_addr_[l0]};
      op_ = kernel::Op{.kind = kernel::OpKind::kTma, .mask = m, .tma = &tma_};
      op_in_ = &in;
      op_mask_ = m;
      return false;
    }
    case Opcode::kFenceTensormap: {
      // The map was rewritten in memory (tensormap.cp_fenceproxy, st.global, ...): the TMA
      // unit drops its cached copy, in order with this warp's later TMA operations.
      if (const std::uint64_t size = A(1, l0); size != 128) {
        return fail(in, fmt::format("size {}: a tensor map is 128 bytes", size));
      }
      Space space = Space::kNone;
      if (!resolve(in, operand(in, 0), m, space, op_addr_)) return false;
      tma_ =
          kernel::TmaOp{.kind = kernel::TmaKind::kInvalidateDescriptor, .descriptor = op_addr_[l0]};
      op_ = kernel::Op{.kind = kernel::OpKind::kTma, .mask = m, .tma = &tma_};
      op_in_ = &in;
      op_mask_ = m;
      return false;
    }
    case Opcode::kCpAsyncBulk:
      return exec_bulk(in, m);
    case Opcode::kCpAsync:
      return exec_ldgsts(in, m);
    default:
      return fail(in, "this instruction is not supported by this front end yet");
  }
}

// The tensor map's global address and the coordinates of a [map, {c0, ...}] operand.
bool WarpInterpreter::tensor_operand(const Instruction& in, const Operand& t, LaneMask m) {
  if (t.kind != Operand::Kind::kAddr || t.count == 0)
    return fail(in, "expected [tensorMap, {coordinates}]");
  const std::uint32_t l0 = first_lane(m);
  std::uint64_t desc = static_cast<std::uint64_t>(t.imm);
  if (t.symbol >= 0) {
    const Variable& v = module_.variables[static_cast<std::size_t>(t.symbol)];
    if (v.space != Space::kParam || !frame().fn->is_entry)
      return fail(in, "a tensor map names a kernel parameter or a generic address");
    if (warp_.args().segment_address() == 0)
      return fail(in,
                  "the kernel's parameters have no device address (launch it through the command "
                  "processor)");
    desc += warp_.args().segment_address() + v.offset;
  }
  if (t.reg != Operand::kNoReg) desc += reg(t.reg, l0);
  if (t.count != in.dims)
    return fail(in, fmt::format(".{}d with {} coordinates", in.dims, t.count));
  tma_.descriptor = desc;
  tma_.rank = t.count;
  for (std::uint32_t k = 0; k < t.count; ++k)
    tma_.coords[k] = static_cast<std::int32_t>(read(member(t, k), l0));
  return true;
}

namespace {

// A cp.reduce.async.bulk operation and element type (PTX .b32/.b64 as their unsigned kinds).
std::optional<kernel::TmaReduce> tma_reduce_of(Mode m) {
  switch (m) {
    case Mode::kAtomAdd:
      return kernel::TmaReduce::kAdd;
    case Mode::kAtomMin:
      return kernel::TmaReduce::kMin;
    case Mode::kAtomMax:
      return kernel::TmaReduce::kMax;
    case Mode::kAtomInc:
      return kernel::TmaReduce::kInc;
    case Mode::kAtomDec:
      return kernel::TmaReduce::kDec;
    case Mode::kAtomAnd:
      return kernel::TmaReduce::kAnd;
    case Mode::kAtomOr:
      return kernel::TmaReduce::kOr;
    case Mode::kAtomXor:
      return kernel::TmaReduce::kXor;
    default:
      return std::nullopt;
  }
}

std::optional<kernel::TmaElement> tma_element_of(Type t) {
  switch (t) {
    case Type::kU32:
    case Type::kB32:
      return kernel::TmaElement::kU32;
    case Type::kS32:
      return kernel::TmaElement::kS32;
    case Type::kU64:
    case Type::kB64:
      return kernel::TmaElement::kU64;
    case Type::kS64:
      return kernel::TmaElement::kS64;
    case Type::kF16:
      return kernel::TmaElement::kF16;
    case Type::kBF16:
      return kernel::TmaElement::kBf16;
    case Type::kF32:
      return kernel::TmaElement::kF32;
    case Type::kF64:
      return kernel::TmaElement::kF64;
    default:
      return std::nullopt;
  }
}

}  // namespace

bool WarpInterpreter::exec_bulk(const Instruction& in, LaneMask m) {
  const auto A = [&](std::uint32_t k, std::uint32_t l) { return read(operand(in, k), l); };
  const std::uint32_t l0 = first_lane(m);
  // The TMA unit takes one request per instruction: the lowest active lane's (CUTLASS elects
  // one thread; more active lanes would each issue the copy, which we refuse to guess at).
  if (std::popcount(m) != 1 && in.sub != Sub::kCommitGroup && in.sub != Sub::kWaitGroup)
    return fail(in, "a bulk copy issued by more than one thread (elect one, as CUTLASS does)");
  tma_ = kernel::TmaOp{};
  std::uint32_t rank = 0;
  switch (in.sub) {
    case Sub::kTensorLoad: {
      tma_.kind = in.im2col ? kernel::TmaKind::kLoadIm2col : kernel::TmaKind::kLoadTile;
      if (!uniform_shared(in, operand(in, 0), m, tma_.smem, &rank, Space::kSharedCluster))
        return false;
      if (!tensor_operand(in, operand(in, 1), m)) return false;
      if (!uniform_shared(in, operand(in, 2), m, tma_.mbar, &rank, Space::kSharedCluster))
        return false;
      std::uint32_t next = 3;
      if (in.im2col) {
        const Operand& o = operand(in, next++);
        if (o.kind != Operand::Kind::kVector || o.count + 2 != in.dims)
          return fail(in, "im2col needs {offsets}, dims - 2 of them");
        tma_.offset_count = o.count;
        for (std::uint32_t k = 0; k < o.count; ++k)
          tma_.offsets[k] = static_cast<std::uint16_t>(read(member(o, k), l0));
      }
      if (in.multicast) tma_.cta_mask = static_cast<std::uint16_t>(A(next++, l0));
      break;
    }
    case Sub::kTensorStore:
    case Sub::kTensorReduce: {
      tma_.kind = in.sub == Sub::kTensorStore
                      ? (in.im2col ? kernel::TmaKind::kStoreIm2col : kernel::TmaKind::kStoreTile)
                      : (in.im2col ? kernel::TmaKind::kReduceIm2col : kernel::TmaKind::kReduceTile);
      if (!tensor_operand(in, operand(in, 0), m)) return false;
      if (!uniform_shared(in, operand(in, 1), m, tma_.smem, nullptr, Space::kShared)) return false;
      if (in.sub == Sub::kTensorReduce) {
        const auto r = tma_reduce_of(in.mode);
        if (!r) return fail(in, "this tensor reduction");
        tma_.reduce = *r;
      }
      break;
    }
    case Sub::kBulkReduce:
    case Sub::kBulkReduceCluster: {
      const auto r = tma_reduce_of(in.mode);
      const auto e = tma_element_of(in.type);
      if (!r || !e) return fail(in, "this bulk reduction");
      tma_.reduce = *r;
      tma_.element = *e;
      if (in.sub == Sub::kBulkReduce) {
        tma_.kind = kernel::TmaKind::kBulkReduce;
        Space space = Space::kNone;
        if (!resolve(in, operand(in, 0), m, space, op_addr_, Space::kGlobal)) return false;
        tma_.global = op_addr_[l0];
      } else {
        tma_.kind = kernel::TmaKind::kBulkReduceToCluster;
        std::uint32_t dst = 0;
        if (!uniform_shared(in, operand(in, 0), m, dst, &tma_.dst_rank, Space::kSharedCluster))
          return false;
        tma_.global = dst;  // the destination offset in rank dst_rank's window
        if (!uniform_shared(in, operand(in, 3), m, tma_.mbar, &rank, Space::kSharedCluster))
          return false;
      }
      if (!uniform_shared(in, operand(in, 1), m, tma_.smem, nullptr, Space::kShared)) return false;
      tma_.bytes = static_cast<std::uint32_t>(A(2, l0));
      break;
    }
    case Sub::kTensorPrefetch:
      tma_.kind = kernel::TmaKind::kPrefetchTile;
      if (!tensor_operand(in, operand(in, 0), m)) return false;
      break;
    case Sub::kBulkLoad:
    case Sub::kBulkSharedToCluster: {
      tma_.kind = in.sub == Sub::kBulkLoad ? kernel::TmaKind::kBulkLoad
                                           : kernel::TmaKind::kBulkSharedToCluster;
      std::uint32_t dst_rank = 0;
      if (!uniform_shared(in, operand(in, 0), m, tma_.smem, &dst_rank, Space::kSharedCluster))
        return false;
      Space space = Space::kNone;
      if (in.sub == Sub::kBulkLoad) {
        if (!resolve(in, operand(in, 1), m, space, op_addr_, Space::kGlobal)) return false;
        tma_.global = op_addr_[l0];
      } else {
        std::uint32_t src = 0;
        if (!uniform_shared(in, operand(in, 1), m, src, nullptr, Space::kShared)) return false;
        tma_.global = tma_.smem;  // kBulkSharedToCluster: `global` is the destination offset
        tma_.smem = src;
        tma_.dst_rank = dst_rank;
      }
      tma_.bytes = static_cast<std::uint32_t>(A(2, l0));
      if (!uniform_shared(in, operand(in, 3), m, tma_.mbar, &rank, Space::kSharedCluster))
        return false;
      if (in.multicast) tma_.cta_mask = static_cast<std::uint16_t>(A(4, l0));
      break;
    }
    case Sub::kBulkStore: {
      tma_.kind = kernel::TmaKind::kBulkStore;
      Space space = Space::kNone;
      if (!resolve(in, operand(in, 0), m, space, op_addr_, Space::kGlobal)) return false;
      tma_.global = op_addr_[l0];
      if (!uniform_shared(in, operand(in, 1), m, tma_.smem, nullptr, Space::kShared)) return false;
      tma_.bytes = static_cast<std::uint32_t>(A(2, l0));
      break;
    }
    case Sub::kBulkPrefetch: {
      tma_.kind = kernel::TmaKind::kBulkPrefetch;
      Space space = Space::kNone;
      if (!resolve(in, operand(in, 0), m, space, op_addr_, Space::kGlobal)) return false;
      tma_.global = op_addr_[l0];
      tma_.bytes = static_cast<std::uint32_t>(A(1, l0));
      break;
    }
    case Sub::kCommitGroup:
      tma_.kind = kernel::TmaKind::kCommitGroup;
      break;
    case Sub::kWaitGroup:
      tma_.kind = kernel::TmaKind::kWaitGroup;
      tma_.pending = static_cast<std::uint32_t>(A(0, l0));
      tma_.read = in.read;
      break;
    default:
      return fail(in, "this bulk operation");
  }
  op_ = kernel::Op{.kind = kernel::OpKind::kTma, .mask = m, .tma = &tma_};
  op_in_ = &in;
  op_mask_ = m;
  return false;
}

// cp.async (LDGSTS): modelled synchronously — the warp's global load, then the shared store
// of its bytes (zero-filled past src-size); commit and wait groups then have nothing left to
// wait for. docs/ptx.md, "What is modelled".
bool WarpInterpreter::exec_ldgsts(const Instruction& in, LaneMask m) {
  if (in.sub == Sub::kCommitGroup || in.sub == Sub::kWaitGroup || in.sub == Sub::kWaitAll) {
    count_alu(in, 1);
    return true;
  }
  const std::uint32_t l0 = first_lane(m);
  const std::uint32_t size = static_cast<std::uint32_t>(read(operand(in, 2), l0));
  if (size != 4 && size != 8 && size != 16)
    return fail(in, fmt::format("cp.async of {} bytes: 4, 8 or 16", size));
  Space dst_space = Space::kNone;
  kernel::Lanes<kernel::Addr> dst{};
  if (!resolve(in, operand(in, 0), m, dst_space, dst, Space::kShared)) return false;
  if (dst_space != Space::kShared) return fail(in, "cp.async writes shared memory");
  Space src_space = Space::kNone;
  if (!resolve(in, operand(in, 1), m, src_space, op_addr_, Space::kGlobal)) return false;
  if (src_space != Space::kGlobal) return fail(in, "cp.async reads global memory");
  std::string bad;
  for_lanes(m, [&](std::uint32_t l) {
    if (bad.empty() && (op_addr_[l] % size != 0 || dst[l] % size != 0))
      bad = fmt::format("lane {}: cp.async addresses {:#x} -> {:#x} are not {}-byte aligned", l,
                        op_addr_[l], dst[l], size);
    ldgsts_src_size_[l] = size;
    if (in.count > 3 && operand(in, 3).kind != Operand::Kind::kSink)
      ldgsts_src_size_[l] =
          std::min<std::uint32_t>(size, static_cast<std::uint32_t>(read(operand(in, 3), l)));
  });
  if (!bad.empty()) return fail(in, bad);
  ldgsts_dst_ = dst;
  op_ = kernel::Op{.kind = kernel::OpKind::kLoadGlobal,
                   .mask = m,
                   .bytes = size,
                   .addr = &op_addr_,
                   .data = reinterpret_cast<std::byte*>(op_data_.data())};
  op_in_ = &in;
  op_mask_ = m;
  return false;
}

}  // namespace xpusim::ptx
