// `vgpusim fit`, `vgpusim validate` and `vgpusim synth-raw`: from hwcal raw measurements to a calibration file,
// and from a calibration back to predicted co-run slowdowns against the measured ones.
#pragma once

#include <string>

#include "sim/io/hwcal_raw.hpp"
#include "sim/io/calibration_file.hpp"
#include "sim/studies/calibration/corun_replay.hpp"
#include "sim/studies/calibration/fit.hpp"

namespace vgpusim {

// The catalog GPU a raw file was measured on (`gpu_override` wins); throws InputError when none matches.
std::string raw_catalog_gpu(const RawFile& raw, const std::string& gpu_override);

// Fits every parameter the raw file supports. The contention coefficient (l2_interference) is fitted on the
// green-context co-runs only; the other co-runs are left for validation.
Calibration fit_calibration(const RawFile& raw, const std::string& gpu);

// `vgpusim fit RAW [--gpu-benches DIR] -o FILE`; with a gpu-benches folder, that GPU's published calibration adds
// its facts and the values the raw file does not fit (add_published).
int fit_command(const std::string& raw_path, const std::string& out_path, const std::string& gpu_override,
                const std::string& gpu_benches_dir = "");
// `vgpusim validate RAW [--calibration CAL] [--json F] [--docs DIR]`: with --docs (and a calibration), also writes
// DIR/hwcal-<gpu>-<raw file's stem less "raw-">.md, the co-runs against the calibration and the models' defaults.
int validate_command(const std::string& raw_path, const std::string& calibration_path, const std::string& json_path,
                     const std::string& gpu_override, const std::string& docs_dir = "");

// A raw file made by the simulator itself from known parameters plus relative noise, for tests and examples.
struct SyntheticTruth {
  double compute_efficiency = 0.75, memory_efficiency = 0.88, bw_saturation_fraction = 0.4, l2_interference = 0.3;
  double slice = 2e-3, switch_cost = 30e-6;
  double idle_grace = 75e-6, idle_switch_cost = 10e-6;  // on the handoff sweep's grid: 75 us lies between 50 and 100
  double busy_per_util = 0.85;  // the kernels' share of a run over NVML's utilization.gpu (telemetry.util_duty)
};
std::string synthetic_raw(const std::string& gpu, const SyntheticTruth& truth, double noise, uint64_t seed);
// `vgpusim synth-raw`: writes synthetic_raw(gpu, SyntheticTruth{}, noise, seed) to `out_path`.
int synth_raw_command(const std::string& gpu, const std::string& out_path, double noise, uint64_t seed);

}  // namespace vgpusim
