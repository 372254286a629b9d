#include "tma/box_image.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "tma/swizzle.h"

namespace xpusim::tma {

std::uint32_t box_alignment(Swizzle mode) {
  return std::max<std::uint32_t>(128, swizzle_alignment(mode));
}

void check_box_window(std::string_view op, std::string_view what, const mem::SharedMemory* smem,
                      std::uint64_t offset, std::uint64_t bytes, Swizzle mode,
                      std::vector<Error>& errors) {
  if (smem == nullptr) {
    errors.push_back({fmt::format("{}: {} has no shared-memory window", op, what)});
    return;
  }
  const std::uint32_t align = box_alignment(mode);
  if (offset % align != 0) {
    errors.push_back({fmt::format(
        "{}: {} offset {:#x} is not {}-byte aligned (tensor boxes need 128 B alignment, and "
        "SWIZZLE_{} needs {} B so its pattern lines up with the offset bits it is keyed on)",
        op, what, offset, align, name(mode), swizzle_alignment(mode))});
  }
  // A swizzle permutes 16 B chunks inside its span, so a box ending mid-span owns the span.
  const std::uint64_t span = swizzle_span_bytes(mode);
  const std::uint64_t footprint = span == 0 ? bytes : (bytes + span - 1) / span * span;
  if (auto st = smem->check_range(offset, footprint); !st) {
    errors.push_back({fmt::format("{}: {} ({} box bytes{}): {}", op, what, bytes,
                                  footprint == bytes ? "" : ", rounded up to the swizzle span",
                                  st.error().message)});
  }
}

namespace {
// Bytes a swizzle keeps together: the whole run when unswizzled.
std::uint64_t granule(Swizzle mode) {
  if (mode == Swizzle::kNone) return ~std::uint64_t{0};
  return mode == Swizzle::k128BAtom32BFlip8B ? 8 : 16;
}
}  // namespace

void write_box_bytes(std::span<std::byte> window, std::uint32_t base, std::uint64_t pos,
                     std::span<const std::byte> src, Swizzle mode) {
  const std::uint64_t g = granule(mode);
  std::size_t done = 0;
  while (done < src.size()) {
    const auto off = static_cast<std::uint32_t>(base + pos + done);
    const std::size_t n = std::min<std::uint64_t>(src.size() - done, g - off % g);
    // memmove: a multicast row may be copied onto itself when two targets coincide
    std::memmove(window.data() + swizzle_offset(mode, off), src.data() + done, n);
    done += n;
  }
}

void read_box_bytes(std::span<const std::byte> window, std::uint32_t base, std::uint64_t pos,
                    std::span<std::byte> dst, Swizzle mode) {
  const std::uint64_t g = granule(mode);
  std::size_t done = 0;
  while (done < dst.size()) {
    const auto off = static_cast<std::uint32_t>(base + pos + done);
    const std::size_t n = std::min<std::uint64_t>(dst.size() - done, g - off % g);
    std::memcpy(dst.data() + done, window.data() + swizzle_offset(mode, off), n);
    done += n;
  }
}

}  // namespace xpusim::tma
