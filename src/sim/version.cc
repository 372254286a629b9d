#include "sim/version.h"

namespace xpusim {
const char* version() {
  return "0.1.0";
}
}  // namespace xpusim
