// Inside the parser: an instruction's dotted name (`ld.global.nc.v4.f32`) and operand count
// → the Instruction's opcode and modifier fields, or the rule it breaks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ptx/module.h"
#include "sim/result.h"

namespace xpusim::ptx {

// `parts` is the name split at dots: {"ld", "global", "nc", "v4", "f32"}. Fills `out`'s opcode
// and modifiers (not its operands); `operands` is how many the statement has, for the arity
// check. Errors name the instruction and the modifier or count at fault.
Status decode_name(const std::vector<std::string_view>& parts, std::size_t operands,
                   Instruction& out);

// A type suffix's Type ("f32" → kF32); kNone when `s` is not one.
Type parse_type(std::string_view s);

}  // namespace xpusim::ptx
