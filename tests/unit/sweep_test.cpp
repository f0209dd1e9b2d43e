// `vgpusim sweep`: parsing --vary, the combinations, and a sweep whose points agree with single runs.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "sim/core/errors.hpp"
#include "sim/core/parallel.hpp"
#include "sim/report/sweep_command.hpp"

namespace unit_sweep {

using namespace vgpusim;

namespace {
std::string error_of(const std::string& text) {
  try {
    parse_variation(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST(Sweep, VaryValuesSplitAtCommasOutsideBracesBracketsAndQuotes) {
  const Variation v = parse_variation("sharing.g0={mode: timeslice, slice: 4ms}, {mode: mps},'a,b',[1, 2]");
  EXPECT_EQ(v.key, "sharing.g0");
  ASSERT_EQ(v.values.size(), 4u);
  EXPECT_EQ(v.values[0], "{mode: timeslice, slice: 4ms}");
  EXPECT_EQ(v.values[1], "{mode: mps}");
  EXPECT_EQ(v.values[2], "'a,b'");
  EXPECT_EQ(v.values[3], "[1, 2]");
  EXPECT_EQ(error_of("nokey"), "--vary 'nokey': expected KEY=V1,V2,... (e.g. sharing.g0.mode=timeslice,mps)");
  EXPECT_EQ(error_of("seed=1,,2"), "--vary seed=1,,2: an empty value");
  EXPECT_EQ(error_of("seed=1,2,1"), "--vary seed=1,2,1: '1' is given twice");
  EXPECT_EQ(error_of("a=x},y"), "--vary a=x},y: a '}' closes nothing");
  EXPECT_EQ(error_of("a={x,y"), "--vary a={x,y: a '{' or '[' is not closed");
  EXPECT_EQ(error_of("a='x,y"), "--vary a='x,y: a quote is not closed");
  // A quote inside a plain value is a character, not the start of a quoted value.
  EXPECT_EQ(parse_variation("name=O'Brien,Smith").values.size(), 2u);
}

TEST(Sweep, CombinationsVaryTheFirstKeySlowest) {
  const auto c = combinations({{"a", {"1", "2"}}, {"b", {"x", "y", "z"}}});
  ASSERT_EQ(c.size(), 6u);
  EXPECT_EQ(c[0][0].value + c[0][1].value, "1x");
  EXPECT_EQ(c[2][0].value + c[2][1].value, "1z");
  EXPECT_EQ(c[3][0].value + c[3][1].value, "2x");
}

TEST(Sweep, EveryCombinationIsCheckedBeforeAnyRunsAndNamedInTheError) {
  const std::string path = std::string(VGPUSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  try {
    run_sweep(path, {}, {{"sharing.g0.mode", {"timeslice", "mps"}}}, 1);
    FAIL();
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("sharing.g0.slice: unknown key 'slice'"), std::string::npos) << what;
    EXPECT_NE(what.find("(in the combination sharing.g0.mode=mps)"), std::string::npos) << what;
  }
  EXPECT_THROW(run_sweep(path, {}, {{"seed", {"1"}}, {"seed", {"2"}}}, 1), InputError);
}

TEST(Sweep, APointIsTheSameRunAsTheScenarioWithThoseValues) {
  const std::string path = std::string(VGPUSIM_SOURCE_DIR) + "/scenarios/timeslice-two-trainers.yaml";
  const auto points = run_sweep(path, {{"duration", "2s"}}, {{"sharing.g0.slice", {"1ms", "4ms"}}}, 2);
  ASSERT_EQ(points.size(), 2u);
  // Two identical busy trainers: each keeps (1/2) q / (q + s) of its speed, s = 40 us.
  EXPECT_NEAR(points[0].results.tenants[0].relative_performance, 0.5 * 1e-3 / (1e-3 + 40e-6), 0.003);
  EXPECT_NEAR(points[1].results.tenants[0].relative_performance, 0.5 * 4e-3 / (4e-3 + 40e-6), 0.003);
  EXPECT_NE(sweep_table(points).find("sharing.g0.slice=4ms"), std::string::npos);
}

TEST(Parallel, EveryIndexRunsOnceAndTheFirstFailureComesBackAfterTheOthers) {
  std::vector<std::atomic<int>> runs(100);
  run_parallel(runs.size(), 4, [&](size_t i) { ++runs[i]; });
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  std::atomic<int> done{0};
  EXPECT_THROW(run_parallel(50, 3,
                            [&](size_t i) {
                              if (i == 7) throw std::runtime_error("seven");
                              ++done;
                            }),
               std::runtime_error);
  EXPECT_EQ(done.load(), 49);  // the other jobs still ran
  run_parallel(0, 8, [](size_t) { FAIL(); });  // nothing to do: no job, no thread
}

}  // namespace unit_sweep
