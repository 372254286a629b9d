// libFuzzer target: bytes -> the 128-byte tensor-map blob decoder (tma::from_blob).
//
// Input: a control byte, then the blob. Control bit 0 set: the blob's CRC-32 (bytes 124-127)
// is recomputed, so the fuzzer gets past the checksum into the fields. Bit 1 set: the rest
// goes to the decoder as it is, whatever its length; otherwise it is cut or zero-padded to
// 128 bytes. Checks:
// - the decoder returns a map or errors, each one line starting with "tensor map blob: ";
// - a blob whose stored CRC-32 is not that of its bytes, or whose size is not 128, is refused;
// - decode -> encode gives the very same 128 bytes (a valid map has one encoding; an older
//   version's blob re-encodes to the current version, which decodes to the same map);
// - an accepted map reads back equal from every writer (tensor_map_check.h).
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "fuzz_check.h"
#include "tensor_map_check.h"
#include "tma/tensor_map_io.h"

namespace {

std::uint32_t crc_of(std::span<const std::byte> b) {
  return static_cast<std::uint32_t>(
      ::crc32(0L, reinterpret_cast<const Bytef*>(b.data()), static_cast<uInt>(b.size())));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace xpusim;
  if (size == 0) return 0;
  const std::uint8_t control = data[0];
  std::vector<std::byte> blob(reinterpret_cast<const std::byte*>(data) + 1,
                              reinterpret_cast<const std::byte*>(data) + size);
  if ((control & 2) == 0) blob.resize(tma::kBlobBytes);
  if ((control & 1) != 0 && blob.size() == tma::kBlobBytes) {
    const std::uint32_t crc = crc_of(std::span(blob).first(124));
    for (std::size_t i = 0; i < 4; ++i)
      blob[124 + i] = static_cast<std::byte>((crc >> (8 * i)) & 0xFF);
  }

  const auto map = tma::from_blob(blob);
  fuzz::check_reader_errors(map, "tensor map blob: ");
  if (blob.size() != tma::kBlobBytes) {
    FUZZ_CHECK(!map.ok());
    return 0;
  }
  std::uint32_t stored = 0;
  for (std::size_t i = 0; i < 4; ++i)
    stored |= std::to_integer<std::uint32_t>(blob[124 + i]) << (8 * i);
  if (stored != crc_of(std::span(blob).first(124))) FUZZ_CHECK(!map.ok());
  if (!map) return 0;

  // A current-version blob has one encoding; an older one re-encodes to the current version,
  // which decodes to the same map.
  const tma::TensorMapBlob again = tma::to_blob(*map);
  if (std::to_integer<std::uint8_t>(blob[3]) == tma::kBlobVersion) {
    FUZZ_CHECK(std::equal(again.begin(), again.end(), blob.begin(), blob.end()));
  } else {
    const auto back = tma::from_blob(again);
    FUZZ_CHECK(back.ok() && *back == *map);
  }
  fuzz::check_tensor_map_round_trips(*map);
  return 0;
}
