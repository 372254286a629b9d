// Small helpers every strict YAML reader needs (chip configs, tensor-map files): 1-based
// positions from yaml-cpp marks, and a short description of a node for error messages.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "config/yaml_reader.h"

namespace xpusim::config {

// 1-based line:column; a null mark (a node without a position) maps to 1:1.
SourcePos yaml_pos(const YAML::Mark& mark);
// `"text"` for a scalar, "a sequence", "a mapping", or "an empty value".
std::string describe_yaml_node(const YAML::Node& node);

}  // namespace xpusim::config
