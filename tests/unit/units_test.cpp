// Unit parsing and formatting: every documented spelling, round trips, and refusals.
#include <gtest/gtest.h>

#include "sim/core/units.hpp"

namespace unit_units {

using vgpusim::units::Dim;
using vgpusim::units::format;
using vgpusim::units::parse;

namespace {
double must(const char* text, Dim dim) {
  const auto r = parse(text, dim);
  EXPECT_TRUE(r.ok) << text << ": " << r.error;
  return r.value;
}
}  // namespace

TEST(Units, ParsesTheIssueExamples) {
  EXPECT_DOUBLE_EQ(must("80GiB", Dim::Bytes), 80.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(must("16GB", Dim::Bytes), 16e9);
  EXPECT_DOUBLE_EQ(must("2ms", Dim::Time), 2e-3);
  EXPECT_DOUBLE_EQ(must("500us", Dim::Time), 500e-6);
  EXPECT_DOUBLE_EQ(must("4.8TB/s", Dim::Bandwidth), 4.8e12);
  EXPECT_DOUBLE_EQ(must("100Gbps", Dim::Bandwidth), 12.5e9);
  EXPECT_DOUBLE_EQ(must("1.98GHz", Dim::Frequency), 1.98e9);
  EXPECT_DOUBLE_EQ(must("67TFLOPS", Dim::FlopRate), 67e12);
  EXPECT_DOUBLE_EQ(must("25%", Dim::Ratio), 0.25);
  EXPECT_DOUBLE_EQ(must("$1.20/h", Dim::MoneyRate), 1.2 / 3600);
}

TEST(Units, AcceptsSpacesOtherPrefixesAndPlainRatios) {
  EXPECT_DOUBLE_EQ(must(" 2 ms ", Dim::Time), 2e-3);
  EXPECT_DOUBLE_EQ(must("1.5min", Dim::Time), 90);
  EXPECT_DOUBLE_EQ(must("512KiB", Dim::Bytes), 512 * 1024.0);
  EXPECT_DOUBLE_EQ(must("0.25", Dim::Ratio), 0.25);
  EXPECT_DOUBLE_EQ(must("40/s", Dim::Rate), 40);
  EXPECT_DOUBLE_EQ(must("2400/min", Dim::Rate), 40);
  EXPECT_DOUBLE_EQ(must("1.2TFLOP", Dim::Flops), 1.2e12);
  EXPECT_DOUBLE_EQ(must("700W", Dim::Power), 700);
  EXPECT_DOUBLE_EQ(must("$730/month", Dim::MoneyRate), 730.0 / (730 * 3600));
  EXPECT_DOUBLE_EQ(must("8", Dim::Count), 8);
  EXPECT_DOUBLE_EQ(must("1e3us", Dim::Time), 1e-3);
  EXPECT_DOUBLE_EQ(must("0x00180011", Dim::Count), 0x00180011);
  EXPECT_FALSE(parse("0x18g", Dim::Count).ok);
}

TEST(Units, RefusesMissingOrWrongUnits) {
  for (const auto& [text, dim] : std::vector<std::pair<const char*, Dim>>{{"120", Dim::Time},
                                                                          {"2 parsecs", Dim::Time},
                                                                          {"80", Dim::Bytes},
                                                                          {"GiB", Dim::Bytes},
                                                                          {"4.8TB", Dim::Bandwidth},
                                                                          {"1.20/h", Dim::MoneyRate},
                                                                          {"abc", Dim::Count},
                                                                          {"", Dim::Ratio},
                                                                          {"nan", Dim::Ratio},
                                                                          {"1e300TiB", Dim::Bytes},  // inf in SI
                                                                          {"1e306h", Dim::Time}}) {
    EXPECT_FALSE(parse(text, dim).ok) << text;
  }
  EXPECT_EQ(parse("120", Dim::Time).error, "expected a time such as '2ms', found '120'");
}

TEST(Units, FormatsForPeople) {
  EXPECT_EQ(format(0.002, Dim::Time), "2 ms");
  EXPECT_EQ(format(85899345920.0, Dim::Bytes), "80 GiB");
  EXPECT_EQ(format(16e9, Dim::Bytes), "16 GB");
  EXPECT_EQ(format(4.8e12, Dim::Bandwidth), "4.8 TB/s");
  EXPECT_EQ(format(0.25, Dim::Ratio), "25%");
  EXPECT_EQ(format(1.2 / 3600, Dim::MoneyRate), "$1.2/h");
  EXPECT_EQ(format(67e12, Dim::FlopRate), "67 TFLOPS");
}

TEST(Units, FormatThenParseRoundTrips) {
  const std::vector<std::pair<double, Dim>> values = {
      {0.002, Dim::Time},     {3.5e-5, Dim::Time},       {85899345920.0, Dim::Bytes}, {16e9, Dim::Bytes},
      {4.8e12, Dim::Bandwidth}, {1.98e9, Dim::Frequency}, {67e12, Dim::FlopRate},     {1.2e12, Dim::Flops},
      {700, Dim::Power},      {0.25, Dim::Ratio}};
  for (const auto& [v, dim] : values) {
    std::string text = format(v, dim);
    text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
    const auto r = parse(text, dim);
    ASSERT_TRUE(r.ok) << text << ": " << r.error;
    EXPECT_NEAR(r.value, v, 1e-3 * v) << text;
  }
}

}  // namespace unit_units
