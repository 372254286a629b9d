// The keys of a pod file, declared once as data: the reader (pod_spec_reader.cc) takes each
// mapping's valid keys from this table and `xpusim schema pod` prints it (docs/fabric-pods.md).
#pragma once

#include <span>

#include <nlohmann/json.hpp>

#include "config/key_schema.h"

namespace xpusim::fabric {

// Every key, in file order.
std::span<const config::KeyDoc> pod_keys();

// The pod file as a JSON Schema (config::json_schema), with the registered shapes as shape's
// choices.
nlohmann::ordered_json pod_schema();

}  // namespace xpusim::fabric
