// libFuzzer target: text -> the HTML report's reader and page (report::check_stats,
// report::essentials, report::html_report), what `xpusim report` does with a stats file.
//
// Text that is not a JSON object is refused before the reader; the reader returns stats or a
// one-line error naming the source; accepted stats always make a whole page, whatever their
// values (no exception, no endless loop: libFuzzer's -timeout catches one).
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_check.h"
#include "report/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace xpusim;
  const nlohmann::json j = nlohmann::json::parse(fuzz::as_text(data, size), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return 0;
  const auto stats = report::check_stats(report::essentials(j), "fuzz", "fuzz.json");
  fuzz::check_reader_errors(stats, "fuzz.json:");
  if (!stats) return 0;
  const std::string html = report::html_report({*stats, *stats});
  FUZZ_CHECK(html.starts_with("<!DOCTYPE html>"));
  FUZZ_CHECK(html.ends_with("</html>\n"));
  return 0;
}
