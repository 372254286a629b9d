#include "sim/huge_pages.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gnu/libc-version.h>
#include <unistd.h>

namespace xpusim::sim {

namespace {
constexpr std::string_view kTunable = "glibc.malloc.hugetlb";

// glibc 2.35 added the tunable; earlier versions ignore it.
bool glibc_has_tunable() {
  int major = 0, minor = 0;
  std::istringstream v(gnu_get_libc_version());
  char dot = 0;
  v >> major >> dot >> minor;
  return major > 2 || (major == 2 && minor >= 35);
}

std::string read_thp_mode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(f, line);
  return line;
}
}  // namespace

bool wants_huge_page_reexec(const char* tunables, const char* opt_out, const char* preload,
                            std::string_view thp) {
  if (opt_out != nullptr && std::string_view(opt_out) == "0") return false;
  if (tunables != nullptr && std::string_view(tunables).find(kTunable) != std::string_view::npos)
    return false;
  if (preload != nullptr && std::string_view(preload).find("vgpreload") != std::string_view::npos)
    return false;
  // The file reads e.g. "always [madvise] never": the bracketed word is the mode.
  return thp.find("[always]") != std::string_view::npos ||
         thp.find("[madvise]") != std::string_view::npos;
}

bool is_dynamic_loader(std::string_view exe) {
  const std::size_t slash = exe.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? exe : exe.substr(slash + 1);
  return name.starts_with("ld-linux") || name.starts_with("ld.so") || name.starts_with("ld64.so");
}

void reexec_with_huge_pages(char** argv) {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (!wants_huge_page_reexec(tunables, std::getenv("XPUSIM_HUGE_PAGES"), std::getenv("LD_PRELOAD"),
                              read_thp_mode()) ||
      !glibc_has_tunable())
    return;
  // The binary itself (exec'ing the /proc link would name the process "exe").
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return;
  self[n] = '\0';
  if (is_dynamic_loader(self)) return;
  const std::string old = tunables != nullptr ? tunables : "";
  const std::string value = (old.empty() ? "" : old + ":") + std::string(kTunable) + "=1";
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  execv(self, argv);
  // The exec failed: go on as we are, with the environment as it was.
  if (tunables != nullptr) {
    setenv("GLIBC_TUNABLES", old.c_str(), 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
}

}  // namespace xpusim::sim
