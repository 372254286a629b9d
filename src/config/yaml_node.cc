#include "config/yaml_node.h"

#include <fmt/format.h>

namespace xpusim::config {

SourcePos yaml_pos(const YAML::Mark& mark) {
  if (mark.is_null() || mark.line < 0) return SourcePos{1, 1};
  return SourcePos{mark.line + 1, mark.column + 1};
}

std::string describe_yaml_node(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return fmt::format("\"{}\"", node.Scalar());
    case YAML::NodeType::Sequence:
      return "a sequence";
    case YAML::NodeType::Map:
      return "a mapping";
    default:
      return "an empty value";
  }
}

}  // namespace xpusim::config
