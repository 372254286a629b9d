// `info`, `list chips`, `schema chip`: the commands that read chip configs.
#include <fmt/format.h>

#include <cstdio>

#include "cli.h"
#include "config/chip_schema.h"
#include "config/chip_spec.h"
#include "system/chip_summary.h"

namespace xpusim::cli {

namespace {
Result<config::ChipSpec> load_chip(const GlobalOptions& g, const std::string& name) {
  auto path = config::resolve_chip(name, config_dir(g));
  if (!path) return path.errors();
  return config::load_chip_file(*path);
}
}  // namespace

void add_info_command(CLI::App& app, const GlobalOptions& g, Action& action) {
  auto* cmd = app.add_subcommand("info", "Print a chip's topology and per-SM resource table");
  auto chip = std::make_shared<std::string>();
  cmd->add_option("CHIP", *chip,
                  "chip name from configs/chips/ (see 'xpusim list chips') or a path")
      ->required();
  cmd->callback([&g, &action, chip] {
    action = [&g, chip] {
      if (auto errors = reject_sim_outputs(g, "info"); !errors.empty()) return fail(errors);
      auto spec = load_chip(g, *chip);
      if (!spec) return fail(spec.errors());
      std::fputs(system::format_chip_summary(*spec).c_str(), stdout);
      return kExitOk;
    };
  });
}

void add_list_command(CLI::App& app, const GlobalOptions& g, Action& action) {
  auto* cmd = app.add_subcommand("list", "List what can be named (chips)");
  auto what = std::make_shared<std::string>();
  cmd->add_option("WHAT", *what, "what to list")->required()->check(CLI::IsMember({"chips"}));
  cmd->callback([&g, &action, what] {
    action = [&g] {
      const auto names = config::list_chips(config_dir(g));
      if (names.empty()) {
        return fail({{fmt::format("no chip files in {}/chips", config_dir(g).string())}});
      }
      for (const auto& n : names)
        std::printf("%s\n", n.c_str());
      return kExitOk;
    };
  });
}

void add_schema_command(CLI::App& app, const GlobalOptions& g, Action& action) {
  auto* cmd = app.add_subcommand("schema", "Print the reference of every config key (markdown)");
  auto what = std::make_shared<std::string>();
  cmd->add_option("WHAT", *what, "which config kind")->required()->check(CLI::IsMember({"chip"}));
  cmd->callback([&g, &action, what] {
    action = [&g] {
      if (auto errors = reject_sim_outputs(g, "schema"); !errors.empty()) return fail(errors);
      std::fputs(config::chip_schema_markdown().c_str(), stdout);
      return kExitOk;
    };
  });
}

}  // namespace xpusim::cli
