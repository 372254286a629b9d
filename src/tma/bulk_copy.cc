// Descriptor-less bulk copies (seed0 ¶48, ¶91, ¶161; PTX cp.async.bulk and
// cp.async.bulk.prefetch.L2): a contiguous byte range moved in 16 B blocks, split into ≤128 B
// line requests. A zero-block request is a no-op (¶161); every other request is checked in full
// before any byte moves. In reports, `elements` counts 16 B blocks.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "tma/copy_engine.h"
#include "tma/reduce_ops.h"

namespace xpusim::tma {

namespace {

constexpr std::uint64_t kBlock = 16;

void check_aligned(std::string_view op, std::string_view what, std::uint64_t value,
                   std::vector<Error>& errors) {
  if (value % kBlock != 0) {
    errors.push_back(
        {fmt::format("{}: {} {:#x} is not a multiple of 16 (bulk copies move 16 B "
                     "blocks)",
                     op, what, value)});
  }
}

void check_global(std::string_view op, std::string_view what, mem::Addr addr, std::uint64_t bytes,
                  std::vector<Error>& errors) {
  check_aligned(op, what, addr, errors);
  if (addr + (bytes - 1) < addr) {
    errors.push_back({fmt::format("{}: {} range [{:#x}, +{}) wraps past the 64-bit address space",
                                  op, what, addr, bytes)});
  }
}

void check_smem(std::string_view op, std::string_view what, const mem::SharedMemory* smem,
                std::uint64_t offset, std::uint64_t bytes, std::vector<Error>& errors) {
  if (smem == nullptr) {
    errors.push_back({fmt::format("{}: {} has no shared-memory window", op, what)});
    return;
  }
  check_aligned(op, fmt::format("{} offset", what), offset, errors);
  if (auto st = smem->check_range(offset, bytes); !st) {
    errors.push_back({fmt::format("{}: {}: {}", op, what, st.error().message)});
  }
}

CopyReport report(std::uint64_t bytes, std::uint32_t destinations) {
  CopyReport r;
  r.destinations = destinations;
  r.bytes_per_destination = destinations == 0 ? 0 : bytes;
  r.elements = bytes / kBlock;
  return r;
}

}  // namespace

Result<CopyReport> bulk_global_to_shared(const mem::GlobalMemory& global, mem::Addr src,
                                         std::span<const SmemTarget> dst, std::uint32_t bytes) {
  constexpr std::string_view op = "bulk_global_to_shared";
  if (bytes == 0) return CopyReport{};
  std::vector<Error> errors;
  check_aligned(op, "size", bytes, errors);
  check_global(op, "global source", src, bytes, errors);
  if (dst.empty()) errors.push_back({fmt::format("{}: no shared-memory destination given", op)});
  for (std::size_t t = 0; t < dst.size(); ++t) {
    check_smem(op, fmt::format("destination {}", t), dst[t].smem, dst[t].offset, bytes, errors);
  }
  if (!errors.empty()) return errors;
  std::byte* first = dst[0].smem->bytes().data() + dst[0].offset;
  XPUSIM_CHECK(global.read(src, {first, bytes}).ok(), "validated above");
  for (std::size_t t = 1; t < dst.size(); ++t) {  // multicast: one read, every destination
    std::memmove(dst[t].smem->bytes().data() + dst[t].offset, first, bytes);
  }
  CopyReport r = report(bytes, static_cast<std::uint32_t>(dst.size()));
  append_line_requests(r.global_requests, src, bytes);
  return r;
}

Result<CopyReport> bulk_shared_to_global(const mem::SharedMemory& smem, std::uint32_t src,
                                         mem::GlobalMemory& global, mem::Addr dst,
                                         std::uint32_t bytes) {
  constexpr std::string_view op = "bulk_shared_to_global";
  if (bytes == 0) return CopyReport{};
  std::vector<Error> errors;
  check_aligned(op, "size", bytes, errors);
  check_smem(op, "shared-memory source", &smem, src, bytes, errors);
  check_global(op, "global destination", dst, bytes, errors);
  if (!errors.empty()) return errors;
  XPUSIM_CHECK(global.write(dst, smem.bytes().subspan(src, bytes)).ok(), "validated above");
  CopyReport r = report(bytes, 0);
  append_line_requests(r.global_requests, dst, bytes);
  return r;
}

Result<CopyReport> bulk_shared_to_shared(const mem::SharedMemory& src_smem, std::uint32_t src,
                                         const SmemTarget& dst, std::uint32_t bytes) {
  constexpr std::string_view op = "bulk_shared_to_shared";
  if (bytes == 0) return CopyReport{};
  std::vector<Error> errors;
  check_aligned(op, "size", bytes, errors);
  check_smem(op, "shared-memory source", &src_smem, src, bytes, errors);
  check_smem(op, "shared-memory destination", dst.smem, dst.offset, bytes, errors);
  if (!errors.empty()) return errors;
  // DSMEM copy: no global traffic; memmove in case source and destination windows coincide.
  std::memmove(dst.smem->bytes().data() + dst.offset, src_smem.bytes().data() + src, bytes);
  return report(bytes, 1);
}

// Not a PTX instruction, but a TMA copy the patent lists (¶48). Overlapping ranges behave like
// memmove. Requests: the source's reads, then the destination's writes.
Result<CopyReport> bulk_global_to_global(mem::GlobalMemory& global, mem::Addr src, mem::Addr dst,
                                         std::uint64_t bytes) {
  constexpr std::string_view op = "bulk_global_to_global";
  if (bytes == 0) return CopyReport{};
  std::vector<Error> errors;
  check_aligned(op, "size", bytes, errors);
  check_global(op, "global source", src, bytes, errors);
  check_global(op, "global destination", dst, bytes, errors);
  if (!errors.empty()) return errors;
  constexpr std::uint64_t kChunk = 64 * 1024;
  std::vector<std::byte> buf(std::min(bytes, kChunk));
  const bool backward = dst > src && dst - src < bytes;  // copy the tail first
  for (std::uint64_t done = 0; done < bytes;) {
    const std::uint64_t n = std::min(kChunk, bytes - done);
    const std::uint64_t at = backward ? bytes - done - n : done;
    XPUSIM_CHECK(global.read(src + at, {buf.data(), n}).ok(), "validated above");
    XPUSIM_CHECK(global.write(dst + at, {buf.data(), n}).ok(), "validated above");
    done += n;
  }
  CopyReport r = report(bytes, 0);
  append_line_requests(r.global_requests, src, bytes);
  append_line_requests(r.global_requests, dst, bytes);
  return r;
}

namespace {

void check_reduce(std::string_view op, ReduceOp r, DataType t, std::vector<Error>& errors) {
  if (!reduce_supported(r, t)) {
    errors.push_back({fmt::format("{}: .{} is not defined for {} elements (supported: {})", op,
                                  name(r), name(t), supported_reduce_ops(t))});
  }
}

}  // namespace

Result<CopyReport> bulk_reduce_shared_to_global(ReduceOp r, DataType t,
                                                const mem::SharedMemory& smem, std::uint32_t src,
                                                mem::GlobalMemory& global, mem::Addr dst,
                                                std::uint32_t bytes) {
  constexpr std::string_view op = "bulk_reduce_shared_to_global";
  std::vector<Error> errors;
  check_reduce(op, r, t, errors);
  if (bytes == 0 && errors.empty()) return CopyReport{};
  check_aligned(op, "size", bytes, errors);
  check_smem(op, "shared-memory source", &smem, src, bytes, errors);
  check_global(op, "global destination", dst, bytes, errors);
  if (!errors.empty()) return errors;
  std::vector<std::byte> cur(bytes);
  if (auto st = global.read(dst, cur); !st)
    return Error{fmt::format("{}: {}", op, st.error().message)};
  reduce_elements(r, t, cur, smem.bytes().subspan(src, bytes));
  XPUSIM_CHECK(global.write(dst, cur).ok(), "read above");
  CopyReport rep = report(bytes, 0);
  append_line_requests(rep.global_requests, dst, bytes);
  return rep;
}

Result<CopyReport> bulk_reduce_shared_to_shared(ReduceOp r, DataType t,
                                                const mem::SharedMemory& src_smem,
                                                std::uint32_t src, const SmemTarget& dst,
                                                std::uint32_t bytes) {
  constexpr std::string_view op = "bulk_reduce_shared_to_shared";
  std::vector<Error> errors;
  check_reduce(op, r, t, errors);
  if (bytes == 0 && errors.empty()) return CopyReport{};
  check_aligned(op, "size", bytes, errors);
  check_smem(op, "shared-memory source", &src_smem, src, bytes, errors);
  check_smem(op, "shared-memory destination", dst.smem, dst.offset, bytes, errors);
  if (!errors.empty()) return errors;
  // A copy of the source first: source and destination may be the same window.
  const std::vector<std::byte> in(src_smem.bytes().begin() + src,
                                  src_smem.bytes().begin() + src + bytes);
  reduce_elements(r, t, dst.smem->bytes().subspan(dst.offset, bytes), in);
  return report(bytes, 1);
}

Result<CopyReport> bulk_prefetch(mem::Addr addr, std::uint64_t bytes) {
  constexpr std::string_view op = "bulk_prefetch";
  if (bytes == 0) return CopyReport{};
  std::vector<Error> errors;
  check_aligned(op, "size", bytes, errors);
  check_global(op, "global range", addr, bytes, errors);
  if (!errors.empty()) return errors;
  CopyReport r = report(bytes, 0);
  append_line_requests(r.global_requests, addr, bytes);
  return r;
}

}  // namespace xpusim::tma
