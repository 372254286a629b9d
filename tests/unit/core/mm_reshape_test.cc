// Higher-rank operands through one mm (seed2 ¶126–128): A of shape m×x×k is read as the
// (m·x)×k matrix A′ (x slices stacked by rows), B of shape k×n×y×z as the k×(n·y·z) matrix B′
// (the y·z matrices concatenated by columns); K is never reshaped. Both are views of the same
// row-major bytes, so the mm runs on them unchanged (B′ row-major: t1). The result is checked
// against the einsum C[i][s][j][u][v] = Σ_t A[i][s][t] · B[t][j][u][v] computed on the
// original ranks.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "core/mm.h"

namespace xpusim::core {
namespace {

TEST(MmReshape, RankThreeATimesRankFourBEqualsTheEinsum) {
  constexpr std::uint32_t m = 4, x = 8, k = 8, n = 2, y = 3, z = 4;  // m·x = 32 threads
  constexpr std::uint32_t cols = n * y * z;
  std::mt19937 gen(11);
  std::vector<std::int8_t> a(m * x * k), b(k * n * y * z);  // row-major, last index fastest
  for (auto& v : a)
    v = static_cast<std::int8_t>(gen() % 256);
  for (auto& v : b)
    v = static_cast<std::int8_t>(gen() % 256);

  RegisterFile regs(m * x, 512);
  for (std::uint32_t row = 0; row < m * x; ++row) {  // A′ row = (i, s): its k bytes in r256..
    for (std::uint32_t r = 0; r < k / 4; ++r) {
      std::uint32_t word = 0;
      std::memcpy(&word, &a[row * k + 4 * r], 4);
      regs.at(row, 256 + r) = word;
    }
  }
  MmInstruction mm{.a_type = MmType::kS8,
                   .b_type = MmType::kS8,
                   .c_base = 0,
                   .a_base = 256,
                   .k = k,
                   .n = cols,
                   .t1 = true};
  for (std::uint32_t t = 0; t < k; ++t)
    mm.b_addresses.push_back(std::uint64_t{t} * cols);  // B′ row t = B[t][*][*][*]
  const MmReader read = [&](std::uint64_t at, std::span<std::byte> out) -> Status {
    if (at + out.size() > b.size()) return Error{"out of B"};
    std::memcpy(out.data(), &b[at], out.size());
    return Ok{};
  };
  const auto done = execute_mm(mm, regs, read);
  ASSERT_TRUE(done.ok()) << done.error().message;

  for (std::uint32_t i = 0; i < m; ++i) {
    for (std::uint32_t s = 0; s < x; ++s) {
      for (std::uint32_t j = 0; j < n; ++j) {
        for (std::uint32_t u = 0; u < y; ++u) {
          for (std::uint32_t v = 0; v < z; ++v) {
            std::int32_t want = 0;
            for (std::uint32_t t = 0; t < k; ++t) {
              want += std::int32_t{a[(i * x + s) * k + t]} *
                      std::int32_t{b[((t * n + j) * y + u) * z + v]};
            }
            const std::uint32_t col = (j * y + u) * z + v;
            EXPECT_EQ(static_cast<std::int32_t>(regs.at(i * x + s, col)), want)
                << i << "," << s << "," << j << "," << u << "," << v;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace xpusim::core
