// `schema KIND`: the keys each config reader accepts, from the table that reader checks against,
// as a JSON Schema (or a markdown reference with --markdown).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <string>

#include "cli.h"
#include "config/chip_schema.h"
#include "config/key_schema.h"
#include "fabric/pod_keys.h"
#include "sim/registry.h"
#include "system/scenario_keys.h"
#include "tma/tensor_map_io.h"

namespace xpusim::cli {
namespace {

using SchemaFn = nlohmann::ordered_json (*)();
// The kinds `schema` knows, in a registry of their own: the same lookup and unknown-name error.
using SchemaKinds = sim::Registry<SchemaFn>;

SchemaKinds schema_kinds() {
  SchemaKinds k("config kind", "config kinds");
  const auto add = [&](std::string name, std::string description, SchemaFn fn) {
    sim::check_builtin(
        k.add({.name = std::move(name), .description = std::move(description), .make = fn}));
  };
  add("chip", "a chip file (configs/chips; docs/config.md)", config::chip_json_schema);
  add("scenario", "a scenario file (xpusim run; docs/run.md)", system::scenario_schema);
  add("pod", "a pod file (xpusim fabric --pod; docs/fabric-pods.md)", fabric::pod_schema);
  add("tensor-map", "a tensor map file (xpusim tma lint; docs/tma.md)", tma::tensor_map_schema);
  return k;
}

}  // namespace

void add_schema_command(CLI::App& app, const GlobalOptions& g, Action& action) {
  const SchemaKinds kinds = schema_kinds();
  std::string help;
  for (const auto& e : kinds.entries())
    help += fmt::format("{}{}: {}", help.empty() ? "" : "; ", e.name, e.description);
  auto* cmd = app.add_subcommand(
      "schema", "Print the keys a config file may hold, as a JSON Schema (--markdown: a table)");
  auto what = std::make_shared<std::string>();
  auto markdown = std::make_shared<bool>(false);
  cmd->add_option("KIND", *what, help);
  cmd->add_flag("--markdown", *markdown,
                "a markdown table instead (chip: with its cross-field rules, as in "
                "docs/config.md)");
  cmd->callback([&g, &action, what, markdown] {
    action = [&g, what, markdown] {
      if (auto errors = reject_sim_outputs(g, "schema"); !errors.empty()) return fail(errors);
      const SchemaKinds all = schema_kinds();
      if (what->empty()) {
        return fail(
            {{fmt::format("schema: name a config kind: {}", fmt::join(all.names(), ", "))}});
      }
      auto kind = all.find(*what);
      if (!kind) return fail({{"schema: " + kind.error().message}});
      if (*markdown) {
        const std::string text = *what == "chip" ? config::chip_schema_markdown()
                                                 : config::json_schema_markdown((*kind)->make());
        std::fputs(text.c_str(), stdout);
      } else {
        std::printf("%s\n", (*kind)->make().dump(2).c_str());
      }
      return kExitOk;
    };
  });
}

}  // namespace xpusim::cli
