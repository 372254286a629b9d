#include "kernel/mm_instruction.h"

#include "sim/result.h"

namespace xpusim::kernel {

const char* mm_type_name(MmType t) {
  switch (t) {
    case MmType::kS8:
      return "s8";
    case MmType::kU8:
      return "u8";
    case MmType::kF16:
      return "f16";
    case MmType::kBF16:
      return "bf16";
    case MmType::kTF32:
      return "tf32";
    case MmType::kF32:
      return "f32";
    case MmType::kS16:
      return "s16";
    case MmType::kU16:
      return "u16";
    case MmType::kS32:
      return "s32";
    case MmType::kU32:
      return "u32";
  }
  return "?";
}

std::uint32_t mm_type_bytes(MmType t) {
  switch (t) {
    case MmType::kS8:
    case MmType::kU8:
      return 1;
    case MmType::kF16:
    case MmType::kBF16:
    case MmType::kS16:
    case MmType::kU16:
      return 2;
    case MmType::kTF32:
    case MmType::kF32:
    case MmType::kS32:
    case MmType::kU32:
      return 4;
  }
  return 4;
}

RegisterFile::RegisterFile(std::uint32_t threads, std::uint32_t regs_per_thread)
    : threads_(threads), regs_(regs_per_thread) {}

std::span<std::uint32_t> RegisterFile::thread(std::uint32_t t) {
  XPUSIM_CHECK(t < threads_, "thread index out of the register file");
  if (words_.empty()) allocate();
  return {words_.data() + std::size_t{t} * regs_, regs_};
}

std::span<const std::uint32_t> RegisterFile::thread(std::uint32_t t) const {
  XPUSIM_CHECK(t < threads_, "thread index out of the register file");
  if (words_.empty()) allocate();  // a span needs the words
  return {words_.data() + std::size_t{t} * regs_, regs_};
}

}  // namespace xpusim::kernel
