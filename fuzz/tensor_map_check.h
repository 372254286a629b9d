// Shared by the tensor-map fuzz targets: every map a reader accepts must survive every writer.
#pragma once

#include <algorithm>
#include <span>

#include <nlohmann/json.hpp>

#include "fuzz_check.h"
#include "tma/tensor_map_io.h"

namespace xpusim::fuzz {

// `map` was accepted by some reader. It is re-validated by the encoder on every way back in,
// so each writer's output must read back as the very same map: YAML, JSON text, the JSON
// object, and the 128-byte blob.
inline void check_tensor_map_round_trips(const tma::TensorMap& map) {
  const auto yaml = tma::parse_tensor_map_yaml(tma::to_yaml(map), "round-trip.yaml");
  check_reader_errors(yaml, "round-trip.yaml:");
  FUZZ_CHECK(yaml.ok() && *yaml == map);

  const nlohmann::json json = tma::to_json(map);
  const auto text = tma::parse_tensor_map_json(json.dump(), "round-trip.json");
  check_reader_errors(text, "round-trip.json:");
  FUZZ_CHECK(text.ok() && *text == map);
  const auto object = tma::from_json(json);
  FUZZ_CHECK(object.ok() && *object == map);

  const tma::TensorMapBlob blob = tma::to_blob(map);
  const auto back = tma::from_blob(blob);
  check_reader_errors(back, "tensor map blob: ");
  FUZZ_CHECK(back.ok() && *back == map);
  FUZZ_CHECK(tma::to_blob(*back) == blob);
}

}  // namespace xpusim::fuzz
