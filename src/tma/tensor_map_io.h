// Saving and loading tensor maps: a 128-byte binary blob (our own layout, the size of CUDA's
// CUtensorMap) and YAML / JSON files whose keys mirror cuda.h's parameter names. Every way in
// goes back through the encoder, so a corrupted blob or a bad file is a list of one-line
// errors, never a half-valid map. Layouts and formats: docs/tma.md ("Tensor maps").
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "sim/result.h"
#include "tma/tensor_map.h"

namespace xpusim::tma {

inline constexpr std::size_t kBlobBytes = 128;
inline constexpr std::uint8_t kBlobVersion = 2;  // 1 is still read (docs/tma.md)
using TensorMapBlob = std::array<std::byte, kBlobBytes>;

TensorMapBlob to_blob(const TensorMap& map);
// Errors start with "tensor map blob: " and name the byte offset of a bad header field.
Result<TensorMap> from_blob(std::span<const std::byte> blob);

// Human-readable forms. to_yaml / to_json write every key, the defaults included.
std::string to_yaml(const TensorMap& map);
nlohmann::json to_json(const TensorMap& map);

// Parses a document; errors are "SOURCE:LINE:COL: KEY: message" (rule violations:
// "SOURCE:LINE:COL: globalStrides[1] = 1000: must be ...").
Result<TensorMap> parse_tensor_map_yaml(std::string_view text, std::string_view source_name);
// JSON text: syntax from nlohmann, then the same reader as YAML (JSON is YAML's flow style),
// so errors carry the same positions.
Result<TensorMap> parse_tensor_map_json(std::string_view text, std::string_view source_name);
Result<TensorMap> from_json(const nlohmann::json& json);  // source name "<json>"

// By extension: .json is JSON, .yaml / .yml YAML; anything else is an error.
Result<TensorMap> load_tensor_map_file(const std::filesystem::path& path);

// The keys parse_tensor_map_yaml accepts, from the table it reads with, as a JSON Schema; each
// key's "x-modes" says which maps (tiled, im2col) take it.
nlohmann::ordered_json tensor_map_schema();

}  // namespace xpusim::tma
