// libFuzzer target: text -> the tensor-map YAML reader (tma::parse_tensor_map_yaml).
//
// The reader returns a map or errors, each one line starting with the source name. A map it
// accepts reads back equal from every writer (YAML, JSON, blob; tensor_map_check.h).
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"
#include "tensor_map_check.h"
#include "tma/tensor_map_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace xpusim;
  const auto map = tma::parse_tensor_map_yaml(fuzz::as_text(data, size), "fuzz.yaml");
  fuzz::check_reader_errors(map, "fuzz.yaml:");
  if (map) fuzz::check_tensor_map_round_trips(*map);
  return 0;
}
