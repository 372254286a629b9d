// Test helper: runs one registered workload on a fresh tiny chip (configs/chips/tiny.yaml) and
// returns its measurements by name, printing them; a failed run fails the calling test.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <string_view>

#include "config/chip_spec.h"
#include "system/run.h"
#include "workloads/register_all.h"

namespace xpusim::workloads {

using Figures = std::map<std::string, double>;

inline Figures run_on_tiny(std::string_view name, const system::ParamValues& overrides,
                           bool functional = true) {
  const config::ChipSpec spec =
      config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml").value();
  auto report = system::run(system::workload_scenario("tiny", name, overrides,
                                                      functional ? system::RunMode::kFunctional
                                                                 : system::RunMode::kTimingOnly),
                            spec, register_all);
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().message);
  Figures out;
  if (!report.ok()) return out;
  EXPECT_TRUE(report->ok()) << (report->ok() ? "" : report->errors.front().message);
  for (const system::Measurement& m : report->measurements) {
    std::cout << "  " << name << ": " << m.name << " = " << m.measured << " " << m.unit << "\n";
    out[m.name] = m.measured;
  }
  return out;
}

// The measurement called `name` (-1 and a test failure when there is none).
inline double at(const Figures& f, const std::string& name) {
  const auto it = f.find(name);
  EXPECT_NE(it, f.end()) << name;
  return it == f.end() ? -1 : it->second;
}

}  // namespace xpusim::workloads
