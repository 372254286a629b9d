// Golden TMA copy-engine throughput (bytes of box moved per second) against host memcpy of the
// same bytes in the same run: the engine's functional model must not be the bottleneck of a
// functional+timing simulation (target: >= 50 % of memcpy bandwidth).
//   BM_TileLoadSwizzle128B : 2-byte 64 x 128 box (inner 128 B rows), SWIZZLE_128B, 16 KiB
//   BM_TileLoadSwizzle128BPrepared: the same through a PreparedTileMap (map checked once)
//   BM_TileLoadNoSwizzle16KiB: the same 16 KiB box without swizzle (diagnostic)
//   BM_TileLoad4MiB        : 4-byte 256 x 256 x 16 box, no swizzle, 4 MiB
//   BM_Memcpy/<bytes>      : memcpy of the same number of bytes between two host buffers
// Compare ratios within one run (docs/performance.md, "TMA golden copy").
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tma/copy_engine.h"

namespace xpusim::tma {
namespace {

struct TileLoadSetup {
  TensorMap map;
  mem::GlobalMemory global;
  mem::SharedMemory smem;
  std::vector<std::int32_t> coords;

  TileLoadSetup(TensorMap m, std::uint64_t tensor_bytes)
      : map(m), smem(static_cast<std::uint32_t>(box_bytes(m))), coords(m.rank, 0) {
    std::vector<std::byte> data(tensor_bytes);
    for (std::size_t i = 0; i < data.size(); ++i)
      data[i] = static_cast<std::byte>(i * 131 + 7);
    if (!global.write(map.global_address, data).ok()) std::abort();
  }
};

TensorMap f16_64x128_swizzled() {
  TensorMap m;
  m.data_type = DataType::kFloat16;
  m.rank = 2;
  m.global_address = 0x10000000;
  m.global_dim = {64, 128, 0, 0, 0};
  m.global_strides = {128, 0, 0, 0};
  m.box_dim = {64, 128, 0, 0, 0};
  m.element_strides = {1, 1, 1, 1, 1};
  m.swizzle = Swizzle::k128B;
  return m;
}

TensorMap f32_4mib() {
  TensorMap m;
  m.data_type = DataType::kFloat32;
  m.rank = 3;
  m.global_address = 0x20000000;
  m.global_dim = {256, 256, 16, 0, 0};
  m.global_strides = {1024, 1024 * 256, 0, 0};
  m.box_dim = {256, 256, 16, 0, 0};
  m.element_strides = {1, 1, 1, 1, 1};
  return m;
}

void run_tile_load(benchmark::State& state, const TensorMap& m, std::uint64_t tensor_bytes) {
  TileLoadSetup s(m, tensor_bytes);
  const std::array<SmemTarget, 1> dst = {{{&s.smem, 0}}};
  for (auto _ : state) {
    auto rep = load_tile(s.map, s.coords, s.global, dst);
    if (!rep.ok()) state.SkipWithError(rep.error().message.c_str());
    benchmark::DoNotOptimize(s.smem.bytes().data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * box_bytes(m)));
}

void BM_TileLoadSwizzle128B(benchmark::State& state) {
  run_tile_load(state, f16_64x128_swizzled(), 64 * 128 * 2);
}
BENCHMARK(BM_TileLoadSwizzle128B);

// The same load through a PreparedTileMap: the map checked and planned once, as the TMA unit's
// descriptor cache would (the path a timing model takes for repeated requests).
void BM_TileLoadSwizzle128BPrepared(benchmark::State& state) {
  TileLoadSetup s(f16_64x128_swizzled(), 64 * 128 * 2);
  const auto prepared = PreparedTileMap::prepare(s.map);
  if (!prepared.ok()) std::abort();
  const std::array<SmemTarget, 1> dst = {{{&s.smem, 0}}};
  for (auto _ : state) {
    auto rep = load_tile(*prepared, s.coords, s.global, dst);
    if (!rep.ok()) state.SkipWithError(rep.error().message.c_str());
    benchmark::DoNotOptimize(s.smem.bytes().data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * box_bytes(s.map)));
}
BENCHMARK(BM_TileLoadSwizzle128BPrepared);

// The same 16 KiB box unswizzled: what the in-place swizzle pass costs.
void BM_TileLoadNoSwizzle16KiB(benchmark::State& state) {
  TensorMap m = f16_64x128_swizzled();
  m.swizzle = Swizzle::kNone;
  run_tile_load(state, m, 64 * 128 * 2);
}
BENCHMARK(BM_TileLoadNoSwizzle16KiB);

void BM_TileLoad4MiB(benchmark::State& state) {
  run_tile_load(state, f32_4mib(), 4 << 20);
}
BENCHMARK(BM_TileLoad4MiB)->Unit(benchmark::kMicrosecond);

// The baseline at its best: both buffers 64 B aligned and 2 KiB apart modulo 4 KiB (glibc's
// memcpy halves its speed on 16 B-aligned buffers or 4 KiB-aliased ones on this machine).
void BM_Memcpy(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<std::byte> buffer(2 * n + 4096);
  const auto skew = reinterpret_cast<std::uintptr_t>(buffer.data()) % 64;
  std::byte* src = buffer.data() + (skew == 0 ? 0 : 64 - skew);
  std::byte* dst = src + n + 2048;
  for (std::size_t i = 0; i < n; ++i)
    src[i] = static_cast<std::byte>(i * 131 + 7);
  for (auto _ : state) {
    std::memcpy(dst, src, n);
    benchmark::DoNotOptimize(dst);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n));
}
BENCHMARK(BM_Memcpy)->Arg(16 << 10)->Arg(4 << 20);

}  // namespace
}  // namespace xpusim::tma

BENCHMARK_MAIN();
