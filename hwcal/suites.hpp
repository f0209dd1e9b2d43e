// The experiment suites of vgpusim-hwcal and the hidden child modes of the multi-process experiments.
// Each suite emits its experiments through RunContext::emit and stops at its time budget.
#pragma once

#include <string>
#include <vector>

#include "hwcal/device_kernels.hpp"
#include "hwcal/experiment.hpp"

namespace vgpusim::hwcal {

// Nominal budgets in seconds (scaled by --budget-s); together about 5 minutes on an H200.
inline constexpr double kBandwidthBudget_s = 20;
inline constexpr double kComputeBudget_s = 25;
inline constexpr double kLatencyBudget_s = 20;
inline constexpr double kLaunchBudget_s = 10;
inline constexpr double kTimesliceBudget_s = 45;
inline constexpr double kCorunBudget_s = 150;
inline constexpr double kTelemetryBudget_s = 20;

void run_bandwidth_suite(RunContext& context);
void run_compute_suite(RunContext& context);
void run_latency_suite(RunContext& context);
void run_launch_suite(RunContext& context);
void run_timeslice_suite(RunContext& context);
void run_corun_suite(RunContext& context);
void run_telemetry_suite(RunContext& context);

// Hidden child modes: `vgpusim-hwcal __child corun|probe ARGS...`; the exit status is the child's result.
int corun_child_main(const std::vector<std::string>& arguments);
int probe_child_main(const std::vector<std::string>& arguments);

// Iterations (a multiple of kFmaUnroll) for one fma_chain launch of this shape to take about target_s, timed on
// this process's default stream (bench_compute.cpp).
unsigned calibrate_iterations(LaunchShape shape, float* sink, double target_s);

// Blocks for the SM-scaling curves: 1, 2, 4, ... below sm_count, then sm_count.
std::vector<unsigned> sm_scaling_points(unsigned sm_count);

}  // namespace vgpusim::hwcal
