// The PTX parser: module text as nvcc 13 prints it (`nvcc -ptx -arch=sm_90a`, PTX ISA 9.0)
// → a decoded Module (module.h). Every error is one line, `FILE:LINE:COL: what (at 'token')`;
// an instruction the interpreter does not model is an error here, never skipped at run time.
#pragma once

#include <string>
#include <string_view>

#include "ptx/module.h"
#include "sim/result.h"

namespace xpusim::ptx {

// `source` names the text in messages (a file name).
Result<Module> parse_module(std::string_view text, const std::string& source);

// Reads and parses a .ptx file. Errors: the file unreadable, or parse_module's.
Result<Module> load_module(const std::string& path);

}  // namespace xpusim::ptx
