// The contention model shared by every spatial mode (MPS, partitions without memory isolation): contexts run side
// by side on the SMs they are given, share DRAM bandwidth, and slow each other through L2. Coefficients are
// declared parameters that calibration (hwcal co-runs) replaces.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "sim/core/params.hpp"
#include "sim/core/sharing_model.hpp"

namespace vgpusim {

// The contention model's parameters, which every spatial mode declares (ParamTable::include).
struct ContentionParams {
  double bw_saturation_fraction;  // of the SMs, for the full DRAM bandwidth
  double l2_interference;         // slowdown per unit of DRAM bandwidth the others draw

  static const ParamTable<ContentionParams>& table();
};
std::vector<ParamSpec> contention_params();
std::string contention_description();

enum class SmAllocation {
  KernelTurns,   // caps summing above 100%: kernels take the SMs in launch order, so contexts take turns, one kernel
                 // each: context i runs kernel_time_i per round of sum_j (SMs_j x kernel_time_j)
  Proportional,  // caps summing above 100%: every busy context gets SMs in proportion to what it asks for
  InOrder,       // caps summing above 100%: the block scheduler fills contexts in order; later ones get the rest
};

// Each busy context's rate (fraction of its solo speed) when the contexts run at once. `sm_caps` caps the SM
// fraction each may hold (1 = no cap); entries of idle contexts are ignored and get rate 0.
void spatial_rates(std::span<const ContextLoad> loads, std::span<const double> sm_caps, SmAllocation allocation,
                   const ContentionParams& params, std::vector<double>& rates);

}  // namespace vgpusim
