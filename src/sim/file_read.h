// Bounded reads of user files and stdin. Every reader a user feeds goes through here, so a
// directory, a device such as /dev/zero or an endless pipe is a one-line error, never an
// exception, a hang or an exhausted host.
#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <string>
#include <string_view>

#include "sim/result.h"

namespace xpusim {

// Text inputs (chip, pod, scenario, tensor-map files): far above any real one.
inline constexpr std::uint64_t kMaxTextFileBytes = std::uint64_t{16} << 20;  // 16 MiB

// The whole file, at most `limit` bytes. `what` names the kind in errors ("chip file"):
// "PATH: cannot open the chip file: REASON", "PATH: is a directory, not a chip file",
// "PATH: the chip file: longer than 16 MiB, the limit on this input", read errors.
Result<std::string> read_file_bounded(const std::filesystem::path& path, std::string_view what,
                                      std::uint64_t limit = kMaxTextFileBytes);

// The rest of a stream, at most `limit` bytes (`name` names it in errors, e.g. "<stdin>").
Result<std::string> read_stream_bounded(std::istream& in, std::string_view name,
                                        std::uint64_t limit = kMaxTextFileBytes);

}  // namespace xpusim
