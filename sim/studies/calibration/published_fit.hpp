// Calibration from published microbenchmarks (gpu-benches, scenarios/measurements/gpu-benches): per catalog GPU,
// the roofline's memory efficiency and the contention model's bandwidth saturation from gpu-stream, and the
// launch overheads (stream launches, CUDA graphs, persistent kernels' grid barriers), L2 bandwidth, minimum kernel
// time and L2 knee from gpu-small-kernels.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "models/gpu/gpu_spec.hpp"
#include "models/gpu/roofline.hpp"
#include "sim/core/params.hpp"
#include "sim/io/calibration_file.hpp"
#include "sim/io/published.hpp"

namespace vgpusim {

// The contention model's bandwidth reach for a streaming kernel holding `share` of the GPU's thread slots:
// min(1, share / saturation) (models/sharing/contention.cpp), with the share read as occupancy x SMs held.
double stream_reach(double share, double saturation);

struct StreamFit {
  double efficiency = 0, saturation = 1;
  double residual = 0;  // RMS relative error over the points
};
// memory_efficiency and bw_saturation_fraction minimizing the squared relative error of
// peak x efficiency x stream_reach(occupancy, saturation) over `points` (occupancy, bytes/s), the efficiency no
// lower than `min_efficiency`. Points without a positive bandwidth are left out; throws InputError when none is left.
StreamFit fit_stream(const std::vector<std::pair<double, double>>& points, double peak, double min_efficiency = 0.01);

// The gpu-stream columns the shipped calibrations are fitted on (scale and triad).
bool stream_calibration_kernel(const std::string& kernel);
// The shipped calibrations' method: fit_stream with the efficiency no lower than the highest bandwidth measured
// among the points (where the curve has not flattened by the largest occupancy, the knee alone would put the
// plateau below what was reached).
StreamFit fit_stream_calibration(const std::vector<std::pair<double, double>>& points, double peak);

// The .txt tables of a gpu-benches folder (e.g. DIR/gpu-stream), sorted; none when it is absent.
std::vector<std::string> gpu_benches_tables(const std::string& dir);

// The measured bandwidth of a gpu-small-kernels row: the median of its columns (bytes/s).
double median_bandwidth(const SmallKernelRow& row);

// What each launch of a gpu-small-kernels variant takes beyond the roofline's time for its kernel (a scale kernel
// over `volume` bytes whose buffers stay where the previous launch left them) on `gpu` with the roofline values
// `roof`: the constant a that minimizes the squared relative errors of a + roofline time (without launch overhead)
// against the time per launch, over the rows whose volume fits in a quarter of L2 and that `keep(i)` accepts (i: the
// row's index). NaN with fewer than 3 such rows.
double small_kernel_overhead(const std::vector<SmallKernelRow>& rows, const GpuSpec& gpu, const RooflineParams& roof,
                             const std::function<bool(size_t)>& keep);

// The gpu-benches source line (commit) of the folder, from its SOURCE.txt; "" when absent.
std::string gpu_benches_commit(const std::string& dir);

// One calibration per catalog GPU with a gpu-stream table in `dir` (the gpu-benches folder).
std::vector<Calibration> fit_gpu_benches(const std::string& dir);

// The source every gpu-benches calibration names first in its `raw` (then the commit and the table).
inline constexpr const char* kGpuBenchesSource = "te42kyfo/gpu-benches";
// Whether a calibration was fitted from gpu-benches alone (else from an hwcal raw file, perhaps with its facts).
bool from_gpu_benches(const Calibration& c);

// Adds to `c` (fitted from an hwcal raw file of the same GPU) what the gpu-benches calibration `published` holds
// and `c` lacks: its facts, and its values for parameters the raw file did not fit. Measurements of our own win.
void add_published(Calibration& c, const Calibration& published);

// `vgpusim fit --gpu-benches DIR -o OUT_DIR`: writes OUT_DIR/<gpu>.yaml (lower case) for each and prints them. A
// file already in OUT_DIR that was fitted from an hwcal raw file is kept (said on stderr, with the command that
// refits it): a measurement on the GPU itself outranks the published microbenchmark.
// With `vidur_dir`, the roofline's op classes are fitted on top for each GPU with profiled ops there (vidur_fit.hpp).
int fit_gpu_benches_command(const std::string& dir, const std::string& out_dir, const std::string& vidur_dir = "");

// The calibration file's name for a catalog GPU: its name in lower case plus ".yaml".
std::string calibration_file_name(const std::string& gpu);

}  // namespace vgpusim
