#include "config/units.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace xpusim::config {
namespace {

using ::testing::HasSubstr;

std::uint64_t ok(Result<std::uint64_t> r) {
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : 0;
}

std::string err(Result<std::uint64_t> r) {
  EXPECT_FALSE(r.ok()) << "unexpectedly parsed as " << (r.ok() ? *r : 0);
  return r.ok() ? "" : r.error().message;
}

TEST(Units, FrequencyIsExactDecimal) {
  EXPECT_EQ(ok(parse_frequency_hz("1.98GHz")), 1'980'000'000u);
  EXPECT_EQ(ok(parse_frequency_hz("1830MHz")), 1'830'000'000u);
  EXPECT_EQ(ok(parse_frequency_hz("1.83 GHz")), 1'830'000'000u);
  EXPECT_EQ(ok(parse_frequency_hz("0.001GHz")), 1'000'000u);
  EXPECT_EQ(ok(parse_frequency_hz("2.5kHz")), 2'500u);
  EXPECT_EQ(ok(parse_frequency_hz("7Hz")), 7u);
  // 1.1 has no exact binary double; exact decimal arithmetic still gives 1100000000.
  EXPECT_EQ(ok(parse_frequency_hz("1.1GHz")), 1'100'000'000u);
  EXPECT_EQ(ok(parse_frequency_hz("1.000000000000000000GHz")), 1'000'000'000u);
}

TEST(Units, SizeDecimalAndBinary) {
  EXPECT_EQ(ok(parse_size_bytes("228KiB")), 228u * 1024);
  EXPECT_EQ(ok(parse_size_bytes("228 KB")), 228'000u);
  EXPECT_EQ(ok(parse_size_bytes("50MiB")), 52'428'800u);
  EXPECT_EQ(ok(parse_size_bytes("80GiB")), 80ull << 30);
  EXPECT_EQ(ok(parse_size_bytes("80GB")), 80'000'000'000u);
  EXPECT_EQ(ok(parse_size_bytes("1TiB")), 1ull << 40);
  EXPECT_EQ(ok(parse_size_bytes("1.5KiB")), 1536u);
  EXPECT_EQ(ok(parse_size_bytes("12B")), 12u);
  EXPECT_EQ(ok(parse_size_bytes("65536")), 65536u);  // a bare size is bytes
  EXPECT_EQ(ok(parse_size_bytes("0")), 0u);
}

TEST(Units, BandwidthAndTime) {
  EXPECT_EQ(ok(parse_bandwidth_bytes_per_s("3.35TB/s")), 3'350'000'000'000u);
  EXPECT_EQ(ok(parse_bandwidth_bytes_per_s("2 TB/s")), 2'000'000'000'000u);
  EXPECT_EQ(ok(parse_bandwidth_bytes_per_s("1GiB/s")), 1ull << 30);
  EXPECT_EQ(ok(parse_time_ps("500ns")), 500'000u);
  EXPECT_EQ(ok(parse_time_ps("1.5 ns")), 1'500u);
  EXPECT_EQ(ok(parse_time_ps("2us")), 2'000'000u);
  EXPECT_EQ(ok(parse_time_ps("3ms")), 3'000'000'000u);
  EXPECT_EQ(ok(parse_time_ps("1s")), 1'000'000'000'000u);
  EXPECT_EQ(ok(parse_time_ps("7ps")), 7u);
}

TEST(Units, RejectsUnknownUnitListingValidOnes) {
  const std::string e = err(parse_frequency_hz("1.98Ghz"));
  EXPECT_THAT(e, HasSubstr("unknown frequency unit \"Ghz\" in \"1.98Ghz\""));
  EXPECT_THAT(e, HasSubstr("did you mean \"GHz\"?"));
  EXPECT_THAT(e, HasSubstr("valid units: Hz, kHz, MHz, GHz"));
  EXPECT_THAT(err(parse_size_bytes("3 GBs")), HasSubstr("valid units: B, KB, MB, GB, TB, KiB"));
  EXPECT_THAT(err(parse_bandwidth_bytes_per_s("3TB")), HasSubstr("unknown bandwidth unit \"TB\""));
  EXPECT_THAT(err(parse_time_ps("5 min")), HasSubstr("valid units: ps, ns, us, ms, s"));
}

TEST(Units, RejectsMissingUnitExceptForSizes) {
  EXPECT_THAT(err(parse_frequency_hz("1830")), HasSubstr("\"1830\" has no unit"));
  EXPECT_THAT(err(parse_time_ps("5")), HasSubstr("has no unit"));
}

TEST(Units, RejectsNonWholeResults) {
  EXPECT_THAT(err(parse_size_bytes("1.5B")), HasSubstr("\"1.5B\" is not a whole number of bytes"));
  EXPECT_THAT(err(parse_time_ps("1.5ps")), HasSubstr("not a whole number of picoseconds"));
  EXPECT_THAT(err(parse_frequency_hz("1.0000000001GHz")), HasSubstr("not a whole number of hertz"));
  EXPECT_THAT(err(parse_size_bytes("1.0001KiB")), HasSubstr("not a whole number of bytes"));
}

TEST(Units, RejectsNegativeEmptyAndGarbage) {
  EXPECT_THAT(err(parse_size_bytes("-1KiB")), HasSubstr("\"-1KiB\" is negative"));
  EXPECT_THAT(err(parse_size_bytes("")), HasSubstr("empty size value"));
  EXPECT_THAT(err(parse_size_bytes("   ")), HasSubstr("empty size value"));
  EXPECT_THAT(err(parse_size_bytes("KiB")), HasSubstr("\"KiB\" is not a number"));
  EXPECT_THAT(err(parse_size_bytes("abc")), HasSubstr("is not a number"));
  EXPECT_THAT(err(parse_size_bytes("1.2.3KiB")), HasSubstr("unknown size unit \".3KiB\""));
}

TEST(Units, RejectsOverflowOf64Bits) {
  EXPECT_EQ(ok(parse_size_bytes("18446744073709551615")), 18446744073709551615ull);
  EXPECT_THAT(err(parse_size_bytes("18446744073709551616")), HasSubstr("does not fit in 64 bits"));
  EXPECT_THAT(err(parse_size_bytes("16EiB")), HasSubstr("unknown size unit"));
  EXPECT_THAT(err(parse_size_bytes("16777216TiB")), HasSubstr("does not fit in 64 bits"));
  EXPECT_THAT(err(parse_time_ps("20000000s")), HasSubstr("does not fit in 64 bits"));
  EXPECT_THAT(err(parse_size_bytes("1.0000000000000000001KiB")),
              HasSubstr("more than 18 decimal places"));
}

TEST(Units, FormatsShortestExactForm) {
  EXPECT_EQ(format_frequency(1'980'000'000), "1.98 GHz");
  EXPECT_EQ(format_frequency(1'830'000'000), "1.83 GHz");
  EXPECT_EQ(format_frequency(1'000'000'000), "1 GHz");
  EXPECT_EQ(format_frequency(0), "0 Hz");
  EXPECT_EQ(format_size(52'428'800), "50 MiB");
  EXPECT_EQ(format_size(228 * 1024), "228 KiB");
  EXPECT_EQ(format_size(80ull << 30), "80 GiB");
  EXPECT_EQ(format_size(80'000'000'000), "80 GB");
  EXPECT_EQ(format_size(1536), "1.5 KiB");
  EXPECT_EQ(format_size(4), "4 B");
  EXPECT_EQ(format_size(123'456'789), "123456789 B");
  EXPECT_EQ(format_bandwidth(3'350'000'000'000), "3.35 TB/s");
  EXPECT_EQ(format_bandwidth(2'000'000'000'000), "2 TB/s");
  EXPECT_EQ(format_time(1'500), "1.5 ns");
  EXPECT_EQ(format_time(1'000'000'000'000), "1 s");
}

TEST(Units, FormatThenParseRoundTrips) {
  for (std::uint64_t v : {1ull, 999ull, 1024ull, 1536ull, 52'428'800ull, 80ull << 30,
                          3'350'000'000'000ull, 123'456'789ull}) {
    EXPECT_EQ(ok(parse_size_bytes(format_size(v))), v);
    EXPECT_EQ(ok(parse_bandwidth_bytes_per_s(format_bandwidth(v))), v);
    EXPECT_EQ(ok(parse_time_ps(format_time(v))), v);
    EXPECT_EQ(ok(parse_frequency_hz(format_frequency(v))), v);
  }
}

}  // namespace
}  // namespace xpusim::config
