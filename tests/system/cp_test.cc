// `xpusim cp replay`: the condensed-dispatch experiment from the command line.
#include "cli_harness.h"

namespace xpusim::test {
namespace {

class CpCli : public CliTest {};

TEST_F(CpCli, CondensedReplayFetchesFewerPacketsAndMatchesTheFormula) {
  const CliRun s = run("cp replay --iterations 10 --mode standard --kernel-cycles 500");
  const CliRun c = run("cp replay --iterations 10 --mode condensed --kernel-cycles 500");
  ASSERT_EQ(s.code, 0) << s.err;
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NE(s.out.find("packets fetched 60 (6.00 per iteration), 3840 bytes"), std::string::npos)
      << s.out;
  EXPECT_NE(c.out.find("packets fetched 15 (1.50 per iteration), 960 bytes"), std::string::npos)
      << c.out;
  // "total N cycles (...); timing formula N cycles" with the same N.
  for (const CliRun* r : {&s, &c}) {
    const auto at = r->out.find("total");
    ASSERT_NE(at, std::string::npos);
    const std::string line = r->out.substr(at, r->out.find('\n', at) - at);
    const std::string total = line.substr(line.find_first_of("0123456789"));
    const std::string n = total.substr(0, total.find(' '));
    EXPECT_NE(line.find("timing formula " + n + " cycles"), std::string::npos) << line;
  }
}

TEST_F(CpCli, BadFlagsAreOneLineErrors) {
  for (const char* args : {"cp replay --mode fast", "cp replay --iterations 0",
                           "cp replay --graph lulesh", "cp replay --kernel-cycles 0"}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(lines(r.err).size(), 1u) << args << "\n" << r.err;
  }
}

}  // namespace
}  // namespace xpusim::test
