// A per-source-line profile of interpreted kernels (`xpusim run --ptx-profile FILE`): for each
// line, the warp-instructions executed there, their active lanes, and the cycles the warps
// stood there by stall reason — what Nsight Compute's source view shows a kernel engineer.
// The interpreter counts instructions; the SM counts stall cycles against the line of the
// operation the warp is on (a batch of ALU instructions is charged to the line it ends at).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace xpusim::kernel {

// The SM's stall reasons, in core::StallReason's order.
inline constexpr std::array<const char*, 4> kStallNames = {"issue", "dependency", "memory",
                                                           "barrier"};

struct LineCounts {
  std::uint64_t warp_instructions = 0;
  std::uint64_t active_lanes = 0;   // lanes at the instruction, summed
  std::uint64_t predicated_on = 0;  // of those, lanes whose guard predicate held
  std::array<std::uint64_t, kStallNames.size()> stall{};
};

class LineProfile {
 public:
  // Registers a source once (its text gives each row its line); later calls with the same
  // name merge into it (several runs of one module).
  void add_source(const char* key, const std::string& name, const std::string& text);
  // The counts of `line` of the source registered under `key` (the pointer a warp carries).
  LineCounts& at(const char* key, std::uint32_t line) {
    if (last_ == nullptr || last_->key != key) last_ = &find(key);
    if (line >= last_->lines.size()) last_->lines.resize(line + 1);
    return last_->lines[line];
  }
  // CSV, one row per line with any count, by source then line:
  // file,line,warp_instructions,active_lane_share,predicated_on_share,stall_issue,...,source
  std::string csv() const;
  // Lines with counts.
  std::size_t rows() const;

 private:
  struct Source {
    const char* key = nullptr;
    std::string name;
    std::vector<std::string> text;  // by line, from 1
    std::vector<LineCounts> lines;
  };
  Source& find(const char* key);
  std::vector<Source> sources_;
  Source* last_ = nullptr;
};

}  // namespace xpusim::kernel
