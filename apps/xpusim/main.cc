#include <cstdio>

#include "sim/version.h"

int main() {
  std::printf("xpusim %s\n", xpusim::version());
  return 0;
}
