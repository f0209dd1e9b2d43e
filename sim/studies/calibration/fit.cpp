// Direct fits. compute_efficiency: the bf16 GEMM rate over the dense tensor peak (FP32 FMA over the FP32 peak
// when no GEMM was measured). memory_efficiency: the better of copy and triad over the datasheet bandwidth.
// bw_saturation_fraction: least squares of bw(s) = peak min(1, s / (sat SMs)) over the bandwidth-vs-SMs points.
// slice and switch_cost: medians of the time-slice probe's pair runs.
#include "sim/studies/calibration/fit.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "models/gpu/roofline.hpp"
#include "sim/core/rng.hpp"
#include "sim/run/metrics.hpp"

namespace vgpusim {

double minimize_1d(const std::function<double(double)>& f, double lo, double hi, int iterations) {
  const double r = (std::sqrt(5.0) - 1) / 2;
  double a = lo, b = hi, c = b - r * (b - a), d = a + r * (b - a);
  double fc = f(c), fd = f(d);
  for (int i = 0; i < iterations; ++i) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - r * (b - a);
      fc = f(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + r * (b - a);
      fd = f(d);
    }
  }
  return (a + b) / 2;
}

double bootstrap_sd(size_t n, const std::function<double(const std::vector<size_t>&)>& estimate, int resamples) {
  if (n < 2) return 0;
  Rng rng(0x5eed);
  std::vector<double> values;
  std::vector<size_t> pick(n);
  for (int r = 0; r < resamples; ++r) {
    for (size_t i = 0; i < n; ++i) pick[i] = static_cast<size_t>(rng.uniform() * static_cast<double>(n));
    values.push_back(estimate(pick));
  }
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  double var = 0;
  for (double v : values) var += (v - mean) * (v - mean);
  return std::sqrt(var / static_cast<double>(values.size() - 1));
}

namespace {

// One standard error of a median from its 10th and 90th percentiles (normal approximation).
double median_se(const RawStats& s) {
  return s.n > 1 ? (s.p90 - s.p10) / 2.563 / std::sqrt(static_cast<double>(s.n)) : 0.0;
}

}  // namespace

std::vector<FittedValue> fit_direct(const RawFile& raw, const GpuSpec& ds) {
  std::vector<FittedValue> out;
  // Compute efficiency.
  if (raw.gemm_flops_per_s && ds.fp16_tensor > 0) {
    const RawStats& s = *raw.gemm_flops_per_s;
    out.push_back({"roofline.compute_efficiency", units::Dim::Ratio, s.median / ds.fp16_tensor,
                   median_se(s) / ds.fp16_tensor,
                   0, s.n, "gemm.bf16 over the dense FP16/BF16 tensor peak"});
  } else if (raw.fp32_flops_per_s && ds.fp32 > 0) {
    const RawStats& s = *raw.fp32_flops_per_s;
    out.push_back({"roofline.compute_efficiency", units::Dim::Ratio, s.median / ds.fp32, median_se(s) / ds.fp32, 0, s.n,
                   "compute.fp32_fma over the FP32 peak (no GEMM measured)"});
  }
  // FP32 (non-tensor) work has its own efficiency when the GEMM set the compute efficiency.
  double fp32_efficiency = 0;
  if (raw.gemm_flops_per_s && raw.fp32_flops_per_s && ds.fp32 > 0) {
    const RawStats& s = *raw.fp32_flops_per_s;
    fp32_efficiency = s.median / ds.fp32;
    out.push_back({"roofline.fp32_efficiency", units::Dim::Ratio, fp32_efficiency, median_se(s) / ds.fp32, 0, s.n,
                   "compute.fp32_fma over the FP32 peak"});
  } else if (raw.fp32_flops_per_s && ds.fp32 > 0) {
    fp32_efficiency = raw.fp32_flops_per_s->median / ds.fp32;
  }
  // Memory efficiency: the better streaming kernel.
  const RawStats* best = nullptr;
  for (const auto* s : {&raw.copy_bytes_per_s, &raw.triad_bytes_per_s})
    if (*s && (!best || (*s)->median > best->median)) best = &**s;
  if (best && ds.memory_bandwidth > 0) {
    double spread = 0;
    if (raw.copy_bytes_per_s && raw.triad_bytes_per_s)
      spread = std::fabs(raw.copy_bytes_per_s->median - raw.triad_bytes_per_s->median) / 2;
    out.push_back({"roofline.memory_efficiency", units::Dim::Ratio, best->median / ds.memory_bandwidth,
                   std::max(median_se(*best), spread) / ds.memory_bandwidth, 0, best->n,
                   "the better of bandwidth.copy and bandwidth.triad over the datasheet bandwidth"});
  }
  // Overlap of compute and memory: the mixed co-run kernel's solo time on the whole GPU against its two sides. The
  // experiments share their solo runs (each kernel's whole-GPU solo time is measured once per run of the suite and
  // repeated in each experiment): each distinct one counts once. Launch overheads at the roofline's default (this
  // fit has no small-kernel measurement; they are ~0.5% of the mixed kernel's time).
  const double memory_efficiency = best && ds.memory_bandwidth > 0 ? best->median / ds.memory_bandwidth : 0;
  const double launch = RooflineParams::table().defaults().launch_overhead;
  std::vector<std::pair<double, const CorunKernel*>> solos;
  for (const CorunExperiment& c : raw.coruns)
    for (const auto& [k, solo] : {std::pair{&c.a, c.solo_full_a}, std::pair{&c.b, c.solo_full_b}})
      if (k->kind == "mixed" && solo > 0 && k->flops > 0 && k->bytes > 0)
        solos.emplace_back(solo, k);
  std::sort(solos.begin(), solos.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  solos.erase(std::unique(solos.begin(), solos.end(), [](const auto& x, const auto& y) { return x.first == y.first; }),
              solos.end());
  std::vector<double> overlaps;
  if (fp32_efficiency > 0 && memory_efficiency > 0)
    for (const auto& [solo, k] : solos) {
      const double compute = k->flops / (ds.fp32 * fp32_efficiency);
      const double memory = k->bytes / (ds.memory_bandwidth * memory_efficiency);
      const double rest = solo - launch * std::max(1, k->launches) - std::max(compute, memory);
      overlaps.push_back(std::clamp(1 - rest / std::min(compute, memory), 0.0, 1.0));
    }
  if (!overlaps.empty()) {
    std::sort(overlaps.begin(), overlaps.end());
    const size_t n = overlaps.size();
    const double median = n % 2 ? overlaps[n / 2] : (overlaps[n / 2 - 1] + overlaps[n / 2]) / 2;
    out.push_back({"roofline.overlap", units::Dim::Ratio, median, (overlaps.back() - overlaps.front()) / 2, 0,
                   static_cast<int>(n),
                   "the mixed co-run kernel's solo time on the whole GPU: 1 - (time - launch overheads - longer "
                   "side) / shorter side, its FP32 and memory sides at the fitted efficiencies; median over its "
                   "distinct solo times"});
  }
  // DRAM bandwidth against SMs.
  const auto& pts = raw.bandwidth_vs_sms;
  if (pts.size() >= 3 && raw.device.sm_count > 0) {
    double peak = 0;
    for (const BandwidthPoint& p : pts) peak = std::max(peak, p.bytes_per_s);
    auto sse = [&](double sat, const std::vector<size_t>& pick) {
      double e = 0;
      for (size_t i : pick) {
        const double f = pts[i].sms / raw.device.sm_count;
        const double model = peak * std::min(1.0, f / sat);
        e += std::pow((model - pts[i].bytes_per_s) / pts[i].bytes_per_s, 2);
      }
      return e;
    };
    std::vector<size_t> all(pts.size());
    std::iota(all.begin(), all.end(), 0);
    const double sat = minimize_1d([&](double x) { return sse(x, all); }, 0.005, 1.0);
    const double sd = bootstrap_sd(pts.size(), [&](const std::vector<size_t>& pick) {
      return minimize_1d([&](double x) { return sse(x, pick); }, 0.005, 1.0);
    });
    out.push_back({"contention.bw_saturation_fraction", units::Dim::Ratio, sat, sd,
                   std::sqrt(sse(sat, all) / static_cast<double>(pts.size())), static_cast<int>(pts.size()),
                   "bandwidth_sm_scaling.triad: bw(s) = peak min(1, s / (sat SMs)), least squares"});
  }
  if (raw.slice)
    out.push_back({"timeslice.slice", units::Dim::Time, raw.slice->median, median_se(*raw.slice), 0, raw.slice->n,
                   "timeslice.probe: median interior run length of two processes"});
  if (raw.switch_cost)
    out.push_back({"timeslice.switch_cost", units::Dim::Time, raw.switch_cost->median, median_se(*raw.switch_cost), 0,
                   raw.switch_cost->n, "timeslice.probe: median time neither process ran"});
  // busy_per_util: how much of nvidia-smi's busy time a job's kernels hold, the median ratio over the points NVML
  // saw 5-95% busy (at 0 or 100% the ratio says nothing), within the parameter's range.
  std::vector<double> ratios;
  for (const UtilDutyPoint& p : raw.util_duty)
    if (p.nvml_gpu >= 0.05 && p.nvml_gpu <= 0.95 && p.busy_share > 0) ratios.push_back(p.busy_share / p.nvml_gpu);
  if (!ratios.empty()) {
    const auto median_of = [&](const std::vector<size_t>& pick) {
      std::vector<double> v;
      for (size_t i : pick) v.push_back(ratios[i]);
      std::sort(v.begin(), v.end());
      return percentile(v, 50);
    };
    std::vector<size_t> all(ratios.size());
    std::iota(all.begin(), all.end(), 0);
    const double value = std::clamp(median_of(all), 0.1, 1.0);
    double sq = 0;
    for (double r : ratios) sq += (r - value) * (r - value);
    out.push_back({"measured.busy_per_util", units::Dim::Ratio, value, bootstrap_sd(ratios.size(), median_of),
                   std::sqrt(sq / static_cast<double>(ratios.size())), static_cast<int>(ratios.size()),
                   "telemetry.util_duty: the kernels' share of a run over NVML's utilization.gpu meanwhile, median "
                   "over the points seen 5-95% busy"});
    // The measured ratio replaces the shipped curve (busy_exponent fitted on another GPU's jobs), not on top of it.
    out.push_back({"measured.busy_exponent", units::Dim::Count, 1.0, 0, 0, static_cast<int>(ratios.size()),
                   "telemetry.util_duty: measured.busy_per_util measured on this GPU replaces the shipped exponent's "
                   "curve: 1"});
  }
  if (raw.handoff && raw.grace_crossing) {
    // The plain handoff is the grace the first keeps plus the switch away from a context without work.
    const double grace = *raw.grace_crossing;
    out.push_back({"timeslice.idle_grace", units::Dim::Time, grace, 0, 0, raw.handoff->n,
                   "timeslice.handoff: host gap through which a context that ran out of work keeps the GPU from a "
                   "waiting one in half the repeats (interpolated over the sweep)"});
    out.push_back({"timeslice.idle_switch_cost", units::Dim::Time, std::max(0.0, raw.handoff->median - grace),
                   median_se(*raw.handoff), 0, raw.handoff->n,
                   "timeslice.handoff: median handoff from a context that ran out of work to a waiting one, less "
                   "the fitted idle_grace"});
  }
  return out;
}

}  // namespace vgpusim
