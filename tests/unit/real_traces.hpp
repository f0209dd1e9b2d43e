// Shared by the tests that replay the real Kineto traces the repository ships (scenarios/traces/kineto).
#pragma once

#include <string_view>

namespace vgpusim::testing_support {

// The two largest traces (a100_rank3_control, 8568 kernels; v100_rank0_train, 4350) take minutes and tens of seconds
// per replay under the sanitizers (VGPUSIM_SANITIZE_BUILD, 40x slower): the Release build replays them, the sanitizer
// build the smaller ones (a100_alexnet_train, 79 kernels on two streams; recsys_sampled_rank0, 1154 on five).
inline bool release_build_only(std::string_view trace_file) {
  return VGPUSIM_SANITIZE_BUILD && (trace_file.starts_with("a100_rank3") || trace_file.starts_with("v100_rank0"));
}

}  // namespace vgpusim::testing_support
