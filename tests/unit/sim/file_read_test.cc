// Bounded reads: a file or stream at the limit reads whole, one byte more is an error, and a
// folder, a missing file or an endless device are one-line errors.
#include "sim/file_read.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace xpusim {
namespace {

namespace fs = std::filesystem;

class FileRead : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("xpusim_file_read_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(FileRead, ReadsUpToTheLimitAndRefusesOneByteMore) {
  // 70000 bytes: longer than one read chunk, so the limit is checked across chunks.
  const std::string text(70000, 'x');
  std::ofstream(dir_ / "f.yaml", std::ios::binary) << text;
  const auto whole = read_file_bounded(dir_ / "f.yaml", "chip file", 70000);
  ASSERT_TRUE(whole.ok()) << whole.error().message;
  EXPECT_EQ(*whole, text);
  const auto over = read_file_bounded(dir_ / "f.yaml", "chip file", 69999);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().message, (dir_ / "f.yaml").string() +
                                      ": the chip file: longer than 69999 bytes, the limit on "
                                      "this input");
}

TEST_F(FileRead, FoldersMissingFilesAndDevicesAreErrors) {
  const auto folder = read_file_bounded(dir_, "pod file");
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.error().message, dir_.string() + ": is a directory, not a pod file");
  const auto missing = read_file_bounded(dir_ / "none.yaml", "pod file");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, (dir_ / "none.yaml").string() +
                                         ": cannot open the pod file: No such file or directory");
  const auto zero = read_file_bounded("/dev/zero", "scenario file", std::uint64_t{1} << 20);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message,
            "/dev/zero: the scenario file: longer than 1 MiB, the limit on this input");
}

TEST_F(FileRead, StreamsAreBoundedToo) {
  std::istringstream small("abc");
  EXPECT_EQ(*read_stream_bounded(small, "<stdin>", 3), "abc");
  std::istringstream big("abcd");
  const auto over = read_stream_bounded(big, "<stdin>", 3);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().message, "<stdin>: longer than 3 bytes, the limit on this input");
}

}  // namespace
}  // namespace xpusim
