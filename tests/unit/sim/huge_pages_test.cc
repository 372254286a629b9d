#include "sim/huge_pages.h"

#include <gtest/gtest.h>

namespace xpusim::sim {
namespace {

constexpr std::string_view kMadvise = "always [madvise] never";

TEST(HugePages, ReexecutesOnlyWhenTheKernelOffersThemAndNothingElseDecided) {
  EXPECT_TRUE(wants_huge_page_reexec(nullptr, nullptr, nullptr, kMadvise));
  EXPECT_TRUE(wants_huge_page_reexec(nullptr, nullptr, nullptr, "[always] madvise never"));
  EXPECT_TRUE(wants_huge_page_reexec("glibc.malloc.check=0", "1", "libfoo.so", kMadvise));
  // The kernel has none (or the file could not be read).
  EXPECT_FALSE(wants_huge_page_reexec(nullptr, nullptr, nullptr, "always madvise [never]"));
  EXPECT_FALSE(wants_huge_page_reexec(nullptr, nullptr, nullptr, ""));
  // The user opted out, or set the tunable (either way: the re-executed process stops here).
  EXPECT_FALSE(wants_huge_page_reexec(nullptr, "0", nullptr, kMadvise));
  EXPECT_FALSE(wants_huge_page_reexec("glibc.malloc.hugetlb=0", nullptr, nullptr, kMadvise));
  EXPECT_FALSE(wants_huge_page_reexec("glibc.malloc.check=0:glibc.malloc.hugetlb=1", nullptr,
                                      nullptr, kMadvise));
  // Under valgrind an exec would run the program outside it.
  EXPECT_FALSE(wants_huge_page_reexec(
      nullptr, nullptr, "/usr/libexec/valgrind/vgpreload_core-amd64-linux.so", kMadvise));
}

TEST(HugePages, RecognisesTheDynamicLoaderAsTheExecutable) {
  EXPECT_TRUE(is_dynamic_loader("/lib64/ld-linux-x86-64.so.2"));
  EXPECT_TRUE(is_dynamic_loader("/usr/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1"));
  EXPECT_TRUE(is_dynamic_loader("/lib/ld64.so.2"));
  EXPECT_TRUE(is_dynamic_loader("ld.so"));
  EXPECT_FALSE(is_dynamic_loader("/work/build/release/apps/xpusim/xpusim"));
  EXPECT_FALSE(is_dynamic_loader("/opt/ld-tools/sm_bench"));
  EXPECT_FALSE(is_dynamic_loader(""));
}

}  // namespace
}  // namespace xpusim::sim
