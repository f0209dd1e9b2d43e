// Calibration from gpu-benches. What is fitted to what:
// - roofline.memory_efficiency, contention.bw_saturation_fraction and roofline.occupancy_saturation (the same
//   number: the share of thread slots at which DRAM saturates): gpu-stream's scale and triad columns (a
//   copy and the kernel hwcal's bandwidth experiments use), all rows, least squares of relative errors with the
//   efficiency no lower than the highest bandwidth measured.
// - roofline.launch_overhead: the intercept a of T = a + V / b over the gpu-small-kernels rows (plain launches) whose volume
//   fits in a quarter of L2; min_kernel_time: the smallest measured time per launch; l2_knee: the volume with the
//   highest bandwidth, when the curve falls after it.
// - roofline.l2_bandwidth: 1 / the slope b of the same fit (the scale kernel reads and writes data that stay in L2).
// - roofline.graph_launch_overhead and grid_sync_overhead: the same tables' CUDA-graph (`_graph`) and persistent
//   kernel with a cooperative grid sync (`_gsync`) variants, rows up to L2/4: the time per launch (per iteration)
//   beyond the roofline's time with every other value of the GPU's calibration, least squares of relative errors. The variant with an
//   atomic-flag barrier (`_pt`, "persistent threads") is fitted by nothing: validation holds it out.
// - roofline.l2_capacity_fraction: gpu-l2-cache, the data set (over the catalog L2 size) where the bandwidth falls
//   half way from its plateau (data sets up to L2/4) to DRAM (data sets of four times L2 and more).
#include "sim/studies/calibration/published_fit.hpp"
#include "sim/studies/calibration/vidur_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <span>
#include <boost/algorithm/string/case_conv.hpp>

#include "models/gpu/roofline.hpp"
#include "models/sharing/contention.hpp"
#include "sim/core/errors.hpp"
#include "sim/io/files.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/published.hpp"
#include "sim/run/metrics.hpp"

namespace fs = std::filesystem;

namespace vgpusim {

double stream_reach(double share, double saturation) {
  ContentionParams p = ContentionParams::table().defaults();
  p.bw_saturation_fraction = saturation;
  const ContextLoad load{1, 0, 0.0, 1.0, 1.0};
  std::vector<double> rates;
  const double cap = std::clamp(share, 1e-6, 1.0);
  spatial_rates(std::span<const ContextLoad>(&load, 1), std::span<const double>(&cap, 1), SmAllocation::Proportional,
                p, rates);
  return rates[0];
}

StreamFit fit_stream(const std::vector<std::pair<double, double>>& all_points, double peak, double min_efficiency) {
  // Points without a bandwidth (0: not measured) say nothing about the curve.
  std::vector<std::pair<double, double>> points;
  for (const auto& [occ, bw] : all_points)
    if (bw > 0 && std::isfinite(bw) && occ > 0) points.emplace_back(occ, bw);
  if (points.empty() || !(peak > 0)) throw InputError("gpu-stream: no measured bandwidth to fit");
  StreamFit best;
  double best_err = 1e300;
  std::vector<double> ratio;
  // A grid over the saturation (0.25% steps); for each, the efficiency in closed form.
  for (int i = 1; i <= 400; ++i) {
    const double sat = i / 400.0;
    // f = the prediction at efficiency 1 over the measurement, per point.
    std::vector<double>& f = ratio;
    f.clear();
    double num = 0, den = 0;
    for (const auto& [occ, bw] : points) {
      f.push_back(peak * stream_reach(occ, sat) / bw);
      num += f.back();
      den += f.back() * f.back();
    }
    const double eff = std::clamp(num / den, std::min(min_efficiency, 1.0), 1.0);
    double err = 0;
    for (double x : f) err += (eff * x - 1) * (eff * x - 1);
    if (err < best_err) {
      best_err = err;
      best = {eff, sat, std::sqrt(err / static_cast<double>(std::max<size_t>(1, points.size())))};
    }
  }
  return best;
}

std::vector<std::string> gpu_benches_tables(const std::string& dir) {
  std::vector<std::string> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".txt") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

double median_bandwidth(const SmallKernelRow& row) {
  if (row.bandwidth.empty()) return 0;
  std::vector<double> sorted = row.bandwidth;
  std::sort(sorted.begin(), sorted.end());
  return percentile(sorted, 50);
}

bool stream_calibration_kernel(const std::string& kernel) { return kernel == "scale" || kernel == "triad"; }

StreamFit fit_stream_calibration(const std::vector<std::pair<double, double>>& points, double peak) {
  double highest = 0;
  for (const auto& [occ, bw] : points)
    if (std::isfinite(bw)) highest = std::max(highest, bw);
  return fit_stream(points, peak, highest / peak);
}

std::string gpu_benches_commit(const std::string& dir) {
  std::ifstream in(fs::path(dir) / "SOURCE.txt");
  std::string line;
  std::getline(in, line);
  const auto at = line.find("commit ");
  if (at == std::string::npos) return "";
  const auto end = line.find_first_of(" (", at + 7);
  return line.substr(at + 7, end == std::string::npos ? std::string::npos : end - at - 7);
}

namespace {

// A stream fit with a larger RMS relative error is not written (its knee does not describe the curve).
constexpr double kMaxStreamResidual = 0.15;

void small_kernel_facts(const fs::path& file, const std::string& source, const GpuSpec& gpu, Calibration& c) {
  const std::vector<SmallKernelRow> rows = read_small_kernels(file.string());
  std::vector<std::pair<double, double>> vt;  // volume, time per launch
  for (const SmallKernelRow& r : rows) {
    const double bw = median_bandwidth(r);
    if (bw > 0) vt.emplace_back(r.volume, r.volume / bw);
  }
  if (vt.size() < 3) return;
  const std::string from = fmt::format("{} {}", source, file.filename().string());
  double tmin = vt[0].second;
  for (const auto& [v, t] : vt) tmin = std::min(tmin, t);
  // T = a + V / b over the L2-resident rows, ordinary least squares of T on V.
  double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0;
  for (const auto& [v, t] : vt) {
    if (v > gpu.l2_cache / 4) continue;
    sx += v;
    sy += t;
    sxx += v * v;
    sxy += v * t;
    n += 1;
  }
  if (n >= 3 && n * sxx - sx * sx > 0) {
    const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    const double a = (sy - slope * sx) / n;
    if (a > 0)
      c.values.push_back({"roofline.launch_overhead", units::Dim::Time, a, 0, 0, static_cast<int>(n),
                          fmt::format("{}: intercept of time per launch against volume over {} rows up to L2/4",
                                      from, static_cast<int>(n))});
    if (a > 0 && slope > 0)
      c.values.push_back({"roofline.l2_bandwidth", units::Dim::Bandwidth, 1 / slope, 0, 0, static_cast<int>(n),
                          fmt::format("{}: volume over time per launch beyond the intercept (1 / slope) over {} rows "
                                      "up to L2/4, a scale kernel (read and write) whose data stay in L2",
                                      from, static_cast<int>(n))});
  }
  c.facts.push_back({"min_kernel_time", units::Dim::Time, tmin, from + ": smallest time per launch"});
  size_t peak = 0;
  for (size_t i = 0; i < vt.size(); ++i)
    if (vt[i].first / vt[i].second > vt[peak].first / vt[peak].second) peak = i;
  const double peak_bw = vt[peak].first / vt[peak].second;
  const double last_bw = vt.back().first / vt.back().second;
  if (peak + 1 < vt.size() && last_bw < 0.8 * peak_bw)
    c.facts.push_back({"l2_knee", units::Dim::Bytes, vt[peak].first,
                       fmt::format("{}: volume of the highest bandwidth ({:.0f} GB/s; {:.0f} GB/s at the largest)",
                                   from, peak_bw / 1e9, last_bw / 1e9)});
}

// The roofline values a calibration holds so far, over the defaults.
RooflineParams roofline_of(const Calibration& c) {
  ParamOverrides o;
  for (const FittedValue& v : c.values) o[v.name] = v.value;
  return RooflineParams::table().with(o);
}

// graph_launch_overhead and grid_sync_overhead from the variants' tables beside the plain one.
void launch_variants(const fs::path& plain, const std::string& source, const GpuSpec& gpu, Calibration& c) {
  const RooflineParams roof = roofline_of(c);
  const struct {
    const char* suffix;
    const char* param;
    const char* what;
  } variants[] = {{"_graph", "roofline.graph_launch_overhead", "kernel node of one CUDA graph"},
                  {"_gsync", "roofline.grid_sync_overhead", "iteration of a persistent kernel (cooperative grid sync)"}};
  for (const auto& v : variants) {
    const fs::path file = plain.parent_path() / (plain.stem().string() + v.suffix + ".txt");
    if (!fs::exists(file)) continue;
    const std::vector<SmallKernelRow> rows = read_small_kernels(file.string());
    const double a = small_kernel_overhead(rows, gpu, roof, [](size_t) { return true; });
    int n = 0;
    for (const SmallKernelRow& r : rows) n += r.volume <= gpu.l2_cache / 4 && median_bandwidth(r) > 0;
    if (!(a > 0)) continue;
    c.values.push_back({v.param, units::Dim::Time, a, 0, 0, n,
                        fmt::format("{} {}: time per {} beyond the roofline's time, least squares of relative errors over {} rows up to L2/4",
                                    source, file.filename().string(), v.what, n)});
  }
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void l2_values(const fs::path& file, const std::string& source, const GpuSpec& gpu, Calibration& c) {
  const std::vector<L2CacheRow> rows = read_l2_cache(file.string());
  if (!(gpu.l2_cache > 0)) return;
  std::vector<double> plateau, dram;
  for (const L2CacheRow& r : rows) {
    if (r.data_set <= gpu.l2_cache / 4) plateau.push_back(r.bandwidth);
    if (r.data_set >= 4 * gpu.l2_cache) dram.push_back(r.bandwidth);
  }
  if (plateau.size() < 3 || dram.size() < 3) return;
  const double high = median_of(plateau), low = median_of(dram);
  if (!(high > 1.2 * low)) return;  // no L2 step to speak of
  const double half = (high + low) / 2;
  double crossing = 0;
  for (size_t i = 1; i < rows.size() && crossing == 0; ++i) {
    const L2CacheRow &a = rows[i - 1], &b = rows[i];
    if (a.data_set < gpu.l2_cache / 4 || !(a.bandwidth >= half && b.bandwidth < half)) continue;
    // Linear in bandwidth, logarithmic in the data set, between the rows on either side.
    const double f = (a.bandwidth - half) / (a.bandwidth - b.bandwidth);
    crossing = a.data_set * std::pow(b.data_set / a.data_set, f);
  }
  if (crossing == 0) return;
  const std::string from = fmt::format("{} {}", source, file.filename().string());
  c.values.push_back({"roofline.l2_capacity_fraction", units::Dim::Ratio, crossing / gpu.l2_cache, 0, 0,
                      static_cast<int>(rows.size()),
                      fmt::format("{}: data set {:.1f} MiB where the bandwidth falls half way from the L2 plateau "
                                  "({:.0f} GB/s, data sets up to L2/4) to DRAM ({:.0f} GB/s, 4 x L2 and more), over "
                                  "the catalog L2 ({:.0f} MiB)",
                                  from, crossing / 1048576, high / 1e9, low / 1e9, gpu.l2_cache / 1048576)});
}

}  // namespace

double small_kernel_overhead(const std::vector<SmallKernelRow>& rows, const GpuSpec& gpu, const RooflineParams& roof,
                             const std::function<bool(size_t)>& keep) {
  RooflineParams p = roof;
  p.launch_overhead = p.graph_launch_overhead = p.grid_sync_overhead = 0;
  // Least squares of relative errors: a = sum((t - m) / t^2) / sum(1 / t^2).
  double num = 0, den = 0;
  int n = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const SmallKernelRow& r = rows[i];
    const double bw = median_bandwidth(r);
    if (!(bw > 0) || r.volume > gpu.l2_cache / 4 || !keep(i)) continue;
    KernelSpec k;
    k.bytes = r.volume;
    k.working_set = r.volume;
    const double t = r.volume / bw;
    num += (t - solo_time(k, gpu, p)) / (t * t);
    den += 1 / (t * t);
    ++n;
  }
  return n >= 3 ? num / den : std::nan("");
}

std::vector<Calibration> fit_gpu_benches(const std::string& dir) {
  const fs::path d(dir);
  if (!fs::is_directory(d / "gpu-stream"))
    throw InputError(fmt::format("{}: expected the gpu-benches folders gpu-stream (and gpu-small-kernels)", dir));
  const std::string commit = gpu_benches_commit(dir);
  const std::string source = kGpuBenchesSource + (commit.empty() ? std::string() : " " + commit);
  std::vector<Calibration> out;
  for (const fs::path file : gpu_benches_tables((d / "gpu-stream").string())) {
    const std::string stem = file.stem().string();
    const std::string gpu = published_gpu_name(stem);
    const CatalogEntry* entry = gpu.empty() ? nullptr : builtin_catalog().find(gpu);
    if (!entry) continue;
    const StreamTable t = read_gpu_stream(file.string());
    std::vector<std::pair<double, double>> points;
    for (size_t k = 0; k < t.kernels.size(); ++k)
      if (stream_calibration_kernel(t.kernels[k]))
        for (const StreamRow& r : t.rows) points.emplace_back(r.occupancy, r.bandwidth[k]);
    if (points.empty()) continue;
    const StreamFit fit = fit_stream_calibration(points, entry->spec.memory_bandwidth);
    Calibration c;
    c.gpu = gpu;
    c.device = stem;
    c.raw = fmt::format("{} gpu-stream/{}", source, file.filename().string());
    const fs::path small = d / "gpu-small-kernels" / (stem + ".txt");
    if (fs::exists(small)) small_kernel_facts(small, source + " gpu-small-kernels", entry->spec, c);
    const fs::path l2 = d / "gpu-l2-cache" / (stem + ".txt");
    if (fs::exists(l2)) l2_values(l2, source + " gpu-l2-cache", entry->spec, c);
    if (fit.residual > kMaxStreamResidual) {
      if (fs::exists(small)) launch_variants(small, source + " gpu-small-kernels", entry->spec, c);
      // The knee does not describe this curve (H200's bandwidth still rises at the largest occupancy measured):
      // its values would replace better ones, so only the facts are kept.
      std::cerr << fmt::format("{}: gpu-stream fit left out (RMS relative error {:.1f}% > {:.0f}%)\n", gpu,
                               100 * fit.residual, 100 * kMaxStreamResidual);
      if (!c.facts.empty() || !c.values.empty()) out.push_back(std::move(c));
      continue;
    }
    const std::string from = fmt::format("{} gpu-stream/{}: scale and triad against occupancy, {} points", source,
                                         file.filename().string(), points.size());
    c.values.push_back({"roofline.memory_efficiency", units::Dim::Ratio, fit.efficiency, 0, fit.residual,
                        static_cast<int>(points.size()), from});
    c.values.push_back({"contention.bw_saturation_fraction", units::Dim::Ratio, fit.saturation, 0, fit.residual,
                        static_cast<int>(points.size()), from + " (share of thread slots = occupancy)"});
    c.values.push_back({"roofline.occupancy_saturation", units::Dim::Ratio, fit.saturation, 0, fit.residual,
                        static_cast<int>(points.size()), from + " (the occupancy at which the bandwidth saturates)"});
    if (fs::exists(small)) launch_variants(small, source + " gpu-small-kernels", entry->spec, c);
    out.push_back(std::move(c));
  }
  return out;
}

bool from_gpu_benches(const Calibration& c) { return c.raw.starts_with(kGpuBenchesSource); }

void add_published(Calibration& c, const Calibration& published) {
  if (c.gpu != published.gpu)
    throw InputError(fmt::format("cannot add the {} calibration from gpu-benches to a {} calibration", published.gpu,
                                 c.gpu));
  for (const FittedValue& v : published.values) {
    const bool fitted = std::any_of(c.values.begin(), c.values.end(),
                                    [&](const FittedValue& own) { return own.name == v.name; });
    if (!fitted) c.values.push_back(v);
  }
  for (const CalibrationFact& f : published.facts) {
    const bool known = std::any_of(c.facts.begin(), c.facts.end(),
                                   [&](const CalibrationFact& own) { return own.name == f.name; });
    if (!known) c.facts.push_back(f);
  }
}

std::string calibration_file_name(const std::string& gpu) {
  return boost::algorithm::to_lower_copy(gpu) + ".yaml";
}

int fit_gpu_benches_command(const std::string& dir, const std::string& out_dir, const std::string& vidur_dir) {
  const std::vector<Calibration> all = fit_gpu_benches(dir);
  std::vector<VidurSkip> skipped;
  const std::vector<VidurCase> vidur =
      vidur_dir.empty() ? std::vector<VidurCase>{} : read_vidur_cases(vidur_dir, "", skipped);
  if (all.empty()) throw InputError(fmt::format("{}: no gpu-stream table of a catalog GPU", dir));
  for (const Calibration& c : all) {
    const std::string name = calibration_file_name(c.gpu);
    const fs::path existing = fs::path(out_dir) / name;
    if (!out_dir.empty() && fs::is_regular_file(existing)) {
      const Calibration own = read_calibration_file(existing.string());
      if (!from_gpu_benches(own)) {
        std::cerr << fmt::format(
            "kept {}: fitted from the hwcal raw file {}; to refit it with these facts: vgpusim fit {} --gpu-benches "
            "{} -o {}\n",
            existing.string(), own.raw, own.raw, dir, existing.string());
        continue;
      }
    }
    Calibration kept = c;
    std::vector<const VidurCase*> ops;
    for (const VidurCase& v : vidur)
      if (v.gpu == c.gpu) ops.push_back(&v);
    if (!ops.empty())
      add_vidur_fit(kept, ops);
    else if (!out_dir.empty() && fs::is_regular_file(existing))  // op classes fitted before (Vidur's ops) stay
      for (const FittedValue& v : read_calibration_file(existing.string()).values)
        if (v.from.starts_with(kVidurSource)) kept.values.push_back(v);
    const std::string text = calibration_yaml(kept);
    if (!out_dir.empty()) write_atomically(out_dir, name, text);
    std::cout << "# " << c.gpu << (out_dir.empty() ? "" : " -> " + out_dir + "/" + name) << "\n" << text;
  }
  return 0;
}

}  // namespace vgpusim
