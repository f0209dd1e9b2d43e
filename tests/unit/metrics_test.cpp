// Percentiles, confidence intervals and SLO accounting.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/run/metrics.hpp"

using namespace vgpusim;

TEST(Metrics, PercentileInterpolatesBetweenRanks) {
  const std::vector<double> v = {1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(percentile(v, 50), 3);
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 5);
  EXPECT_DOUBLE_EQ(percentile(v, 90), 4.6);
  EXPECT_DOUBLE_EQ(percentile({7}, 99), 7);
}

TEST(Metrics, ConfidenceIntervalNeedsEnoughValuesAndShrinksWithThem) {
  EXPECT_TRUE(std::isnan(mean_ci95_halfwidth(std::vector<double>(19, 1.0))));
  EXPECT_DOUBLE_EQ(mean_ci95_halfwidth(std::vector<double>(100, 1.0)), 0.0);
  std::vector<double> small, large;
  for (int i = 0; i < 100; ++i) small.push_back(i % 7);
  for (int i = 0; i < 10000; ++i) large.push_back((i * 7919) % 7);
  EXPECT_GT(mean_ci95_halfwidth(small), 0);
  EXPECT_LT(mean_ci95_halfwidth(large), mean_ci95_halfwidth(small));
}

TEST(Metrics, ReplicationIntervalIsStudentTAndExactlyZeroOnlyWhenTheyAgree) {
  // {1, 2, 3}: mean 2, sd 1, t(0.975, 2 dof) = 4.3027: 4.3027 / sqrt(3).
  EXPECT_NEAR(replication_ci95_halfwidth({1, 2, 3}), 4.302653 / std::sqrt(3.0), 1e-5);
  EXPECT_EQ(replication_ci95_halfwidth({0.25, 0.25, 0.25}), 0.0);
  EXPECT_GT(replication_ci95_halfwidth({0.25, 0.25, 0.2500001}), 0.0);
  EXPECT_TRUE(std::isnan(replication_ci95_halfwidth({0.25})));
  EXPECT_NEAR(student_t95(9), 2.262, 1e-3);  // the batch means' 10 batches
}
