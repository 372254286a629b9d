#include "sim/version.h"

namespace xpusim {
const char* version() {
  return "0.1.0";
}
const char* git_describe() {
  return XPUSIM_GIT_DESCRIBE;
}
}  // namespace xpusim
