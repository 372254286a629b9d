// libFuzzer target: text -> the pod config reader (fabric::load_pod_string).
//
// The reader returns a PodSpec or errors, each one line starting with the source name (the
// topology's checks, run after the YAML's, included). A spec it accepts must build: the
// topology builds again from it, with as many chips as the shape's dimensions multiply to (at
// most 65 536), at least one of them active; every medium's numbers are finite and not
// negative, bit error rates at most 1.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fabric/pod_spec.h"
#include "fabric/topology.h"
#include "fuzz_check.h"

namespace {

using namespace xpusim;

void check_spec(const fabric::PodSpec& spec) {
  FUZZ_CHECK(spec.source == "fuzz.yaml");
  const auto topo = fabric::build_topology(spec);
  fuzz::check_reader_errors(topo, "fuzz.yaml");
  FUZZ_CHECK(topo.ok());
  FUZZ_CHECK(!spec.dims.empty());
  if (spec.shape != fabric::Shape::kExplicit) {
    std::uint64_t chips = 1;
    for (std::uint32_t d : spec.dims) {
      FUZZ_CHECK(d >= 1);
      chips *= d;
      FUZZ_CHECK(chips <= 65536);
    }
    FUZZ_CHECK(topo->chips() == chips);
  }
  FUZZ_CHECK(topo->chips() >= 1 && topo->chips() <= 65536);
  FUZZ_CHECK(topo->active_chips() >= 1 && topo->active_chips() <= topo->chips());
  for (const fabric::MediumSpec& m : spec.media) {
    FUZZ_CHECK(std::isfinite(m.bit_error_rate) && m.bit_error_rate >= 0 && m.bit_error_rate <= 1);
    FUZZ_CHECK(std::isfinite(m.default_length_m) && m.default_length_m >= 0);
  }
  for (const fabric::ExplicitLink& l : spec.links)
    FUZZ_CHECK(std::isfinite(l.length_m));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto pod = fabric::load_pod_string(fuzz::as_text(data, size), "fuzz.yaml");
  fuzz::check_reader_errors(pod, "fuzz.yaml:");
  if (pod) check_spec(*pod);
  return 0;
}
