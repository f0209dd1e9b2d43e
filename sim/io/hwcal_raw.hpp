// The hwcal raw measurement file (schema vgpusim.hwcal.raw/1, docs/hwcal.md), read into the few numbers the fits
// and the co-run validation use.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace vgpusim {

class RawFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RawStats {
  double median = 0, p10 = 0, p90 = 0;
  int n = 0;
};

struct RawDevice {
  std::string name;     // as CUDA reports it, e.g. "NVIDIA H200"
  double sm_count = 0;
  double memory = 0;    // bytes
  std::string driver;   // NVML driver version when known
  std::string date;
};

struct BandwidthPoint {
  double sms = 0;           // distinct SMs used
  double bytes_per_s = 0;   // median
};

struct CorunKernel {
  std::string kind;  // compute | memory | mixed
  double flops = 0;  // per run (all launches)
  double bytes = 0;  // per run
  double blocks_per_launch = 0;
  int launches = 0;
};

struct CorunExperiment {
  std::string name;
  std::string form;       // streams | processes | green_ctx | mps
  std::string partition;  // e.g. "64+64", "50+50", "uncapped", ""
  double a_sms = 0, b_sms = 0;  // green contexts: SMs granted; 0 = whole GPU
  double a_cap = 1, b_cap = 1;  // MPS active-thread fraction
  CorunKernel a, b;
  double slowdown_a = 0, slowdown_b = 0;  // measured: median co-run / median solo (device time)
  double solo_full_a = 0, solo_full_b = 0;  // s, median device time of each kernel sequence alone on the whole GPU; 0 = absent
};

// timeslice.paced: a light process launching kernels of light_kernel_s a host gap apart, alone and beside a busy
// process that launched busy_launches kernels of busy_kernel_s at once busy_lead_s earlier (medians over repeats).
struct PacedPoint {
  double gap_s = 0;
  int sync_every = 0;  // waits for its kernels every that many launches; 0: once, at the end
  int launches = 0;
  double speed = 0;            // its run alone over its run beside
  double gpu_share_alone = 0;  // its utilization alone
};
struct PacedExperiment {
  double light_kernel_s = 0, busy_kernel_s = 0, busy_lead_s = 0;
  int busy_launches = 0;
  std::vector<PacedPoint> points;
};

// telemetry.util_duty: one point of kernels holding a known share of a run, and NVML's utilization.gpu meanwhile.
struct UtilDutyPoint {
  double busy_share = 0;  // the kernels' share of the run
  double nvml_gpu = 0;    // utilization.gpu (fraction) over the point's settled reads
};

struct RawFile {
  std::string file;
  RawDevice device;
  std::optional<RawStats> copy_bytes_per_s, triad_bytes_per_s;
  std::optional<RawStats> fp32_flops_per_s, gemm_flops_per_s;
  std::vector<BandwidthPoint> bandwidth_vs_sms;
  std::optional<RawStats> slice, switch_cost;  // s
  // timeslice.handoff: from a context that ran out of work to one that waits (s), and the host gap through which
  // the first keeps the GPU in half the repeats (s).
  std::optional<RawStats> handoff;
  std::optional<double> grace_crossing;
  std::vector<CorunExperiment> coruns;
  std::optional<PacedExperiment> paced;
  std::vector<UtilDutyPoint> util_duty;
  std::vector<std::string> not_measured;  // experiments skipped or failed, with why
  // Values that should be numbers but are not (e.g. a null slowdown): the experiment or point holding them is left
  // out and the file is still read; the caller prints these.
  std::vector<std::string> warnings;
};

inline constexpr size_t kMaxRawExperiments = 2000;
// timeslice.paced: hwcal writes 6 points of at most 5000 launches beside 1000; the bounds keep a re-simulation of a
// damaged file to seconds.
inline constexpr size_t kMaxPacedPoints = 100;
inline constexpr double kMaxPacedLaunches = 1e6;
inline constexpr double kMaxPacedRun_s = 60;  // either process's run alone
RawFile parse_raw(const std::string& text, const std::string& file);
RawFile read_raw_file(const std::string& path);

}  // namespace vgpusim
