// The chip file schema, declared once as data: its fields (key, type, unit, range, default,
// description) and its cross-field rules. load_chip_* validate with it; the docs print it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "config/chip_spec.h"
#include "config/schema.h"
#include "config/yaml_reader.h"

namespace xpusim::config {

// Every key of a chip file, in file order.
std::vector<FieldDecl> chip_fields();

// Copies each valid value into its ChipSpec member; invalid or absent ones stay zero.
ChipSpec bind_chip_fields(const FieldValues& values);

// Checks (chip_rules.cc) the cross-field rules whose keys all read cleanly; each broken rule is
// reported at its offending key and names the other key and its value.
void check_chip_rules(const ChipSpec& spec, const FieldValues& values, Diagnostics& diag);

// Markdown table of the cross-field rules (chip_rules.cc).
std::string chip_rules_markdown();

// Every key's value, nested by its dotted path, in base units (Hz, bytes, bytes/s, ps): the
// resolved config a stats file records.
nlohmann::json chip_to_json(const ChipSpec& spec);

// Markdown reference: the key table and the cross-field rule table.
std::string chip_schema_markdown();

// The key table as a JSON Schema (`xpusim schema chip`; key_schema.h).
nlohmann::ordered_json chip_json_schema();

}  // namespace xpusim::config
