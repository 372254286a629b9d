// `info`, `list KIND`: the command that reads chip configs, and the listing of every registry
// of named choices.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli.h"
#include "config/chip_schema.h"
#include "config/chip_spec.h"
#include "core/warp_scheduler.h"
#include "fabric/pod_spec.h"
#include "fabric/policy.h"
#include "kernel/registry.h"
#include "sched/policy.h"
#include "sim/registry.h"
#include "system/chip_summary.h"
#include "system/workload.h"
#include "workloads/register_all.h"

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

namespace {

// One line of `xpusim list KIND`.
struct Row {
  std::string name, description;
};
using ListFn = Result<std::vector<Row>> (*)(const GlobalOptions&);
// The kinds `list` knows, in a registry of their own: the same lookup and unknown-name error.
using ListKinds = sim::Registry<ListFn>;

template <class Factory>
std::vector<Row> rows_of(const sim::Registry<Factory>& r) {
  std::vector<Row> rows;
  for (const auto& e : r.entries())
    rows.push_back({e.name, e.description});
  return rows;
}

Result<std::vector<Row>> chip_rows(const GlobalOptions& g) {
  const auto names = config::list_chips(config_dir(g));
  if (names.empty()) {
    return Error{fmt::format("no chip files in {}/chips", config_dir(g).string())};
  }
  std::vector<Row> rows;
  for (const auto& n : names) {
    auto spec = load_chip(g, n);
    rows.push_back(
        {n, spec ? spec->description : fmt::format("(does not load; see 'xpusim info {}')", n)});
  }
  return rows;
}

// Kernels and workloads from their own registries, filled the way `xpusim run` fills them.
struct Workloads {
  kernel::KernelRegistry kernels;
  system::WorkloadRegistry workloads;
};

Result<Workloads> all_workloads() {
  Workloads w;
  if (Status st = workloads::register_all(w.kernels, w.workloads); !st) return st.errors();
  return w;
}

Result<std::vector<Row>> kernel_rows(const GlobalOptions&) {
  auto w = all_workloads();
  if (!w) return w.errors();
  std::vector<Row> rows;
  for (const std::string& n : w->kernels.names())
    rows.push_back({n, (*w->kernels.find(n))->description});
  return rows;
}

Result<std::vector<Row>> workload_rows(const GlobalOptions&) {
  auto w = all_workloads();
  if (!w) return w.errors();
  std::vector<Row> rows;
  for (const std::string& n : w->workloads.names())
    rows.push_back({n, std::string((*w->workloads.find(n))->description())});
  return rows;
}

// The files of configs/SUB/ with one of `exts`, by stem, sorted; each described by the first
// sentence of its header comment (YAML) or its "description" key (JSON tensor maps have none:
// the file name says it).
Result<std::vector<Row>> file_rows(const GlobalOptions& g, const std::string& sub,
                                   std::vector<std::string> exts) {
  const std::filesystem::path dir = config_dir(g) / sub;
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (std::find(exts.begin(), exts.end(), e.path().extension().string()) != exts.end()) {
      files.push_back(e.path());
    }
  }
  if (files.empty()) return Error{fmt::format("no files in {}", dir.string())};
  std::sort(files.begin(), files.end());
  std::vector<Row> rows;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string comment;
    for (std::string line; std::getline(in, line) && line.rfind('#', 0) == 0;) {
      const auto text = line.find_first_not_of("# ");
      if (text == std::string::npos) break;  // a bare '#' ends the first paragraph
      comment += (comment.empty() ? "" : " ") + line.substr(text);
    }
    // The first sentence: up to ". " or the end of the comment block.
    if (const auto stop = comment.find(". "); stop != std::string::npos) comment.resize(stop);
    if (!comment.empty() && comment.back() == '.') comment.pop_back();
    if (comment.size() > 100) comment = comment.substr(0, 97) + "...";
    rows.push_back({f.filename().string(), comment});
  }
  return rows;
}

ListKinds list_kinds() {
  ListKinds k("kind", "kinds");
  // Listed in the order added (every order is 0).
  const auto add = [&](std::string name, std::string description, ListFn fn) {
    sim::check_builtin(
        k.add({.name = std::move(name), .description = std::move(description), .make = fn}));
  };
  add("chips", "chip configs in configs/chips/", chip_rows);
  add("policies", "work-distributor (CWD) policies (--policy, a scenario's policy)",
      [](const GlobalOptions&) -> Result<std::vector<Row>> { return rows_of(sched::policies()); });
  add("schedulers", "SM warp schedulers (--scheduler, a scenario's sm_scheduler)",
      [](const GlobalOptions&) -> Result<std::vector<Row>> {
        return rows_of(core::warp_schedulers());
      });
  add("fabric-policies", "fabric buffer allocation policies (fabric --policy, buffer.policy)",
      [](const GlobalOptions&) -> Result<std::vector<Row>> {
        return rows_of(fabric::allocation_policies());
      });
  add("topologies", "pod shapes (a pod file's shape)",
      [](const GlobalOptions&) -> Result<std::vector<Row>> {
        return rows_of(fabric::topologies());
      });
  add("pods", "pod configs in configs/pods/ (fabric --pod)",
      [](const GlobalOptions& g) { return file_rows(g, "pods", {".yaml"}); });
  add("scenarios", "scenario files in configs/scenarios/ (xpusim run)",
      [](const GlobalOptions& g) { return file_rows(g, "scenarios", {".yaml"}); });
  add("tensor-maps", "example tensor maps in configs/examples/ (xpusim tma lint/copy/layout)",
      [](const GlobalOptions& g) {
        return file_rows(g, "examples", {".yaml", ".yml", ".json"});
      });
  add("kernels", "kernels a scenario can launch", kernel_rows);
  add("workloads", "workloads a scenario can run", workload_rows);
  return k;
}

// NAME  description, the descriptions aligned; a row without one is its name alone.
void print_rows(const std::vector<Row>& rows) {
  std::size_t width = 0;
  for (const Row& r : rows)
    width = std::max(width, r.name.size());
  for (const Row& r : rows) {
    if (r.description.empty()) {
      fmt::print("{}\n", r.name);
    } else {
      fmt::print("{:<{}}  {}\n", r.name, width, r.description);
    }
  }
}

}  // namespace

void add_list_command(CLI::App& app, const GlobalOptions& g, Action& action) {
  const std::vector<std::string> kinds = list_kinds().names();
  auto* cmd = app.add_subcommand(
      "list", fmt::format("List what can be named, one NAME  description a line ({})",
                          fmt::join(kinds, ", ")));
  auto what = std::make_shared<std::string>();
  cmd->add_option("KIND", *what, fmt::format("what to list: {}", fmt::join(kinds, " | ")))
      ->required();
  cmd->callback([&g, &action, what] {
    action = [&g, what] {
      const ListKinds all = list_kinds();
      auto kind = all.find(*what);
      if (!kind) return fail({{"list: " + kind.error().message}});
      auto rows = (*kind)->make(g);
      if (!rows) return fail(rows.errors());
      print_rows(*rows);
      return kExitOk;
    };
  });
}

}  // namespace xpusim::cli
