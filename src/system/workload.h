// Workload: what a scenario runs — one or more registered kernels plus the host side a real
// benchmark has: inputs written into device memory, the launches queued, and afterwards the
// results checked (functional mode) and the measurements read out. The concrete workloads
// (microbenchmarks, GEMM, convolution, Kripke) live in src/workloads and register through
// workloads::register_all (workloads/register_all.h); the system layer knows only this interface.
//
// Parameters are whole numbers (sizes, strides, counts) with defaults; a scenario file or the
// CLI overrides them by name. Workloads register into a WorkloadRegistry the caller owns (no
// global table), next to their kernels in a KernelRegistry.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/registry.h"
#include "sim/registry.h"
#include "sim/result.h"
#include "system/chip.h"

namespace xpusim::system {

struct ParamDecl {
  std::string name;
  std::string description;
  std::uint64_t default_value = 0;
  std::uint64_t min = 0;  // inclusive bounds, checked before setup
  std::uint64_t max = ~std::uint64_t{0};
};

using ParamValues = std::map<std::string, std::uint64_t, std::less<>>;

// One figure a workload measured, printed next to what the chip config says it should be.
struct Measurement {
  std::string name;                  // e.g. "L2 hit latency"
  double measured = 0;               // in `unit`
  std::optional<double> configured;  // the config's value, when it has one
  std::string unit;                  // "cycles", "GB/s", ...
  std::string note;                  // how it was measured (one short line)
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  virtual std::vector<ParamDecl> params() const = 0;
  // Writes inputs into chip.memory() and queues the launches (chip.launch). `values` holds
  // every declared parameter (defaults filled in, bounds checked). Errors: a combination of
  // parameters the workload cannot run (named), or a launch the chip rejects.
  virtual Status setup(system::Chip& chip, const kernel::KernelRegistry& kernels,
                       const ParamValues& values) = 0;
  // After the simulation: in functional mode checks the results against a reference (an
  // error names the first mismatch); returns the measurements.
  virtual Result<std::vector<Measurement>> report(system::Chip& chip) = 0;
};

// The workloads of a run: a sim::Registry whose entries own their workload (a workload keeps
// its state between setup and report, so each run fills its own); registration order.
class WorkloadRegistry {
 public:
  // Errors: an empty or duplicate name.
  Status add(std::unique_ptr<Workload> w);
  // Errors: an unknown name, with the closest registered one and the list.
  Result<Workload*> find(std::string_view name) const;
  std::vector<std::string> names() const { return r_.names(); }
  const std::vector<sim::Registry<std::unique_ptr<Workload>>::Entry>& entries() const {
    return r_.entries();
  }

 private:
  sim::Registry<std::unique_ptr<Workload>> r_{"workload", "workloads"};
};

// `overrides` on top of the declared defaults. Errors: an unknown name (with the valid ones),
// a value outside [min, max] (naming both).
Result<ParamValues> resolve_params(const Workload& w, const ParamValues& overrides);

}  // namespace xpusim::system
