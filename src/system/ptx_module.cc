#include "system/ptx_module.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "ptx/parser.h"
#include "ptx/ptx_kernel.h"

namespace xpusim::system {
namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (const char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs `command` with its stdout and stderr into a temporary file; its exit status and output.
std::pair<int, std::string> run_tool(const std::string& command) {
  const fs::path log = fs::temp_directory_path() / fmt::format("xpusim-tool-{}-{}.log", ::getpid(),
                                                               std::hash<std::string>{}(command));
  const int rc = std::system((command + " > " + quoted(log.string()) + " 2>&1").c_str());
  std::ifstream in(log);
  std::ostringstream out;
  out << in.rdbuf();
  std::error_code ec;
  fs::remove(log, ec);
  return {rc, out.str()};
}

std::string first_error_line(const std::string& output) {
  std::istringstream in(output);
  std::string line, first;
  while (std::getline(in, line)) {
    if (first.empty() && !line.empty()) first = line;
    if (line.find("error") != std::string::npos) return line;
  }
  return first.empty() ? "no output" : first;
}

}  // namespace

std::string find_cuda_tool(const std::string& name) {
  std::vector<fs::path> dirs;
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* v = std::getenv(env); v != nullptr && *v != '\0')
      dirs.push_back(fs::path(v) / "bin");
  }
  dirs.emplace_back("/usr/local/cuda/bin");
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::istringstream in(path);
    std::string dir;
    while (std::getline(in, dir, ':'))
      if (!dir.empty()) dirs.emplace_back(dir);
  }
  for (const fs::path& d : dirs) {
    std::error_code ec;
    const fs::path p = d / name;
    if (fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

Status compile_cuda(const fs::path& cu, const fs::path& ptx) {
  const std::string nvcc = find_cuda_tool("nvcc");
  if (nvcc.empty()) {
    return Error{
        fmt::format("{}: nvcc not found ($CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin, "
                    "PATH): compile it with `nvcc -ptx -arch=sm_90a` and name the .ptx with ptx:",
                    cu.string())};
  }
  const auto [rc, out] = run_tool(fmt::format("{} -ptx -arch=sm_90a -O3 -o {} {}", quoted(nvcc),
                                              quoted(ptx.string()), quoted(cu.string())));
  if (rc != 0) return Error{fmt::format("{}: nvcc failed: {}", cu.string(), first_error_line(out))};
  return Ok{};
}

Result<std::map<std::string, std::uint32_t>> ptxas_registers(const fs::path& ptx) {
  std::map<std::string, std::uint32_t> regs;
  const std::string ptxas = find_cuda_tool("ptxas");
  if (ptxas.empty()) return regs;
  const auto [rc, out] = run_tool(
      fmt::format("{} -arch=sm_90a -v -o /dev/null {}", quoted(ptxas), quoted(ptx.string())));
  if (rc != 0)
    return Error{fmt::format("{}: ptxas rejects it: {}", ptx.string(), first_error_line(out))};
  // "Compiling entry function 'NAME' for 'sm_90a'" ... "Used N registers".
  std::istringstream in(out);
  std::string line, entry;
  while (std::getline(in, line)) {
    const auto c = line.find("Compiling entry function '");
    if (c != std::string::npos) {
      const auto start = c + 26;
      entry = line.substr(start, line.find('\'', start) - start);
      continue;
    }
    const auto u = line.find("Used ");
    if (u != std::string::npos && !entry.empty()) {
      regs[entry] = static_cast<std::uint32_t>(std::strtoul(line.c_str() + u + 5, nullptr, 10));
      entry.clear();
    }
  }
  return regs;
}

Status register_ptx_file(const fs::path& ptx, const std::string& shown,
                         kernel::KernelRegistry& kernels) {
  std::ifstream in(ptx, std::ios::binary);
  if (!in) return Error{fmt::format("{}: cannot read the PTX file", shown)};
  std::ostringstream text;
  text << in.rdbuf();
  auto module = ptx::parse_module(text.str(), shown);
  if (!module) return module.errors();
  auto regs = ptxas_registers(ptx);
  if (!regs) return regs.errors();
  auto shared = std::make_shared<const ptx::Module>(std::move(module).value());
  const auto globals = ptx::device_globals(*shared);  // one per module: its kernels share it
  for (const ptx::Function& f : shared->functions) {
    if (!f.is_entry) continue;
    auto def = ptx::make_kernel(shared, f.name, globals);
    if (!def) return def.errors();
    if (const auto it = regs->find(f.name); it != regs->end())
      def->registers_per_thread = std::max(it->second, 1u);
    if (auto st = kernels.add(std::move(def).value()); !st) return st;
  }
  return Ok{};
}

}  // namespace xpusim::system
