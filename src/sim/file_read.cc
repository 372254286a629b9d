#include "sim/file_read.h"

#include <cerrno>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

namespace xpusim {
namespace {

std::string size_text(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t{1} << 20) && bytes % (std::uint64_t{1} << 20) == 0) {
    return fmt::format("{} MiB", bytes >> 20);
  }
  return fmt::format("{} bytes", bytes);
}

}  // namespace

Result<std::string> read_stream_bounded(std::istream& in, std::string_view name,
                                        std::uint64_t limit) {
  std::string text;
  char chunk[1 << 16];
  while (in) {
    in.read(chunk, sizeof chunk);
    const auto got = static_cast<std::uint64_t>(in.gcount());
    if (text.size() + got > limit) {
      return Error{
          fmt::format("{}: longer than {}, the limit on this input", name, size_text(limit))};
    }
    text.append(chunk, static_cast<std::size_t>(got));
  }
  if (in.bad()) return Error{fmt::format("{}: read error", name)};
  return text;
}

Result<std::string> read_file_bounded(const std::filesystem::path& path, std::string_view what,
                                      std::uint64_t limit) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Error{fmt::format("{}: is a directory, not a {}", path.string(), what)};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Error{fmt::format("{}: cannot open the {}: {}", path.string(), what,
                             std::error_code(errno, std::generic_category()).message())};
  }
  return read_stream_bounded(in, fmt::format("{}: the {}", path.string(), what), limit);
}

}  // namespace xpusim
