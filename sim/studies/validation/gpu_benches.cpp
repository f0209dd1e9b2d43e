// gpu-benches (te42kyfo/gpu-benches): DRAM bandwidth against occupancy (gpu-stream) and the time of small
// back-to-back kernels (gpu-small-kernels), predicted with the roofline and the contention model's bandwidth reach.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <boost/algorithm/string/case_conv.hpp>

#include "models/gpu/roofline.hpp"
#include "models/sharing/contention.hpp"
#include "sim/core/errors.hpp"
#include "sim/io/calibration_file.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/published.hpp"
#include "sim/studies/calibration/published_fit.hpp"
#include "sim/studies/validation/published.hpp"

namespace fs = std::filesystem;

namespace vgpusim {
namespace {

// The roofline's bandwidth for a streaming kernel (256-thread blocks) holding `occupancy` of the GPU's thread
// slots, with the fitted efficiency and saturation: what a scenario's kernel with `threads` gets.
double roofline_stream_bandwidth(const GpuSpec& gpu, const StreamFit& fit, double occupancy) {
  RooflineParams p = RooflineParams::table().defaults();
  p.launch_overhead = 0;
  p.memory_efficiency = fit.efficiency;
  p.occupancy_saturation = fit.saturation;
  KernelSpec k;
  k.bytes = 1e9;
  k.threads = 256;
  k.blocks = occupancy * gpu.compute_units * gpu.threads_per_sm / k.threads;
  return k.bytes / solo_time(k, gpu, p);
}

ValidationRun stream_run(const fs::path& dir) {
  ValidationRun run;
  run.dataset = "gpu-benches-stream";
  run.quantity = "DRAM bandwidth (B/s)";
  const RooflineParams defaults_roof = RooflineParams::table().defaults();
  const ContentionParams defaults_cont = ContentionParams::table().defaults();
  run.method =
      "gpu-stream runs streaming kernels (init, read, scale, triad, 3- and 5-point stencils) on every SM at rising "
      "occupancy. The model: the roofline's time for a streaming kernel whose blocks hold that occupancy of the "
      "GPU's thread slots (`threads` per block, threads per SM from the catalog): bandwidth = catalog bandwidth x "
      "`roofline.memory_efficiency` x min(1, occupancy / `roofline.occupancy_saturation`) (Little's law: bytes in "
      "flight, not SMs, set the bandwidth; the same fit gives `contention.bw_saturation_fraction`, the contention "
      "model's reach for an SM partition). Split \"shipped "
      "method\": the two parameters fitted as the shipped calibrations are (scale and triad together, the efficiency "
      "no lower than the highest bandwidth measured), on the even rows, and checked on the odd rows of scale and "
      "triad; the shipped files themselves are fitted on all rows. Split \"per-kernel knee\": the two parameters "
      "fitted for each kernel on its even rows, checked on its odd rows: how well a knee can follow each curve. "
      "Baselines: the uncalibrated model (defaults: efficiency " +
      fmt::format("{:g}, saturation {:g}", defaults_roof.memory_efficiency,
                  defaults_cont.bw_saturation_fraction) +
      ") and the plain roofline (catalog bandwidth x default efficiency at every occupancy).";
  for (const fs::path file : gpu_benches_tables((dir / "gpu-stream").string())) {
    const std::string stem = file.stem().string();
    const std::string gpu = published_gpu_name(boost::algorithm::to_lower_copy(stem));
    const StreamTable table = read_gpu_stream(file.string());
    const CatalogEntry* entry = gpu.empty() ? nullptr : builtin_catalog().find(gpu);
    if (!entry) {
      for (size_t i = 0; i < table.rows.size() * table.kernels.size(); ++i)
        run.skipped.push_back({gpu.empty() ? stem : gpu, "GPU not in the catalog"});
      continue;
    }
    const double peak = entry->spec.memory_bandwidth;
    auto add = [&](const std::string& split, size_t k, const StreamRow& r, const StreamFit& fit) {
      if (!(r.bandwidth[k] > 0)) {
        run.skipped.push_back({gpu, "no bandwidth measured", split});
        return;
      }
      ValidationCase c;
      c.gpu = gpu;
      c.split = split;
      c.id = fmt::format("{} {} occupancy {:.1f}%", stem, table.kernels[k], r.occupancy * 100);
      c.measured = r.bandwidth[k];
      c.predicted = entry->spec.threads_per_sm > 0 ? roofline_stream_bandwidth(entry->spec, fit, r.occupancy)
                                                   : fit.efficiency * peak * stream_reach(r.occupancy, fit.saturation);
      c.baseline["uncalibrated model"] = defaults_roof.memory_efficiency * peak *
                                         stream_reach(r.occupancy, defaults_cont.bw_saturation_fraction);
      c.baseline["plain roofline"] = defaults_roof.memory_efficiency * peak;
      run.cases.push_back(c);
    };
    // The shipped method on the even rows, checked on the odd rows.
    std::vector<std::pair<double, double>> even;
    for (size_t k = 0; k < table.kernels.size(); ++k)
      if (stream_calibration_kernel(table.kernels[k]))
        for (size_t i = 0; i < table.rows.size(); i += 2)
          even.emplace_back(table.rows[i].occupancy, table.rows[i].bandwidth[k]);
    if (!even.empty()) {
      const StreamFit shipped = fit_stream_calibration(even, peak);
      for (size_t k = 0; k < table.kernels.size(); ++k)
        if (stream_calibration_kernel(table.kernels[k]))
          for (size_t i = 1; i < table.rows.size(); i += 2)
            add("shipped method, odd rows (fit on even)", k, table.rows[i], shipped);
    }
    // A knee per kernel.
    for (size_t k = 0; k < table.kernels.size(); ++k) {
      std::vector<std::pair<double, double>> train;
      for (size_t i = 0; i < table.rows.size(); i += 2)
        train.emplace_back(table.rows[i].occupancy, table.rows[i].bandwidth[k]);
      const StreamFit fit = fit_stream(train, peak);
      for (size_t i = 1; i < table.rows.size(); i += 2)
        add("per-kernel knee, odd rows (fit on even)", k, table.rows[i], fit);
    }
  }
  return run;
}

ValidationRun small_kernels_run(const fs::path& dir) {
  ValidationRun run;
  run.dataset = "gpu-benches-small-kernels";
  run.quantity = "time per launch (s)";
  run.method =
      "gpu-small-kernels repeats a streaming scale kernel (16 bytes per element) of rising size 2,000-30,000 times; "
      "the published columns are GB/s of data volume per repetition, and the measured time per repetition is the "
      "volume over the median of the columns (one per block size). Variants: plain launches on a stream, the same "
      "launches captured in one CUDA graph (`graph`), and one persistent kernel whose iterations are separated by a "
      "grid-wide barrier, either cooperative groups' grid sync (`gsync`) or atomic flags (`pt`, persistent "
      "threads). The model predicts a repetition's time with the roofline: the overhead of the repetition's launch "
      "kind (`launch_overhead`, `graph_launch_overhead` or `grid_sync_overhead`) + volume / bandwidth, the kernel's "
      "working set being its volume (the same buffers every time). Within `l2_capacity_fraction` of L2 the bandwidth "
      "is `l2_bandwidth`, above it the catalog DRAM bandwidth x memory_efficiency, all from the GPU's shipped "
      "calibration: memory_efficiency fitted on gpu-stream and l2_capacity_fraction on gpu-l2-cache (other "
      "benchmarks), launch_overhead and l2_bandwidth together on the plain launches' rows up to L2/4 (so that split "
      "is not held out). `graph` and `gsync`: their overhead is fitted here on the even rows up to L2/4 (the constant "
      "beyond the roofline's time with the least squared relative error; the shipped calibrations use all those "
      "rows) and checked on the odd rows. "
      "`pt` is held out: it takes the GPU's shipped grid_sync_overhead (fitted on its gsync rows; the A40 has none "
      "and takes the default, the H200's). A GPU without an L2 capacity calibration (A40) takes its catalog L2 size. "
      "Baselines: the plain roofline at the catalog bandwidth (efficiency 1, no overhead) and the roofline with its "
      "default values (the H200's overheads for every GPU, no L2 level).";
  const RooflineParams defaults = RooflineParams::table().defaults();
  for (const fs::path file : gpu_benches_tables((dir / "gpu-small-kernels").string())) {
    std::string stem = file.stem().string();
    std::string variant = "plain";
    for (const char* v : {"_graph", "_gsync", "_pt"}) {
      const std::string suffix = v;
      if (stem.size() > suffix.size() && stem.substr(stem.size() - suffix.size()) == suffix) {
        variant = suffix.substr(1);
        stem = stem.substr(0, stem.size() - suffix.size());
      }
    }
    const std::string gpu = published_gpu_name(stem);
    const std::vector<SmallKernelRow> rows = read_small_kernels(file.string());
    const CatalogEntry* entry = gpu.empty() ? nullptr : builtin_catalog().find(gpu);
    if (!entry) {
      for (size_t i = 0; i < rows.size(); ++i) run.skipped.push_back({gpu.empty() ? stem : gpu, "GPU not in the catalog"});
      continue;
    }
    RooflineParams roof = RooflineParams::table().with(builtin_overrides(gpu));
    const LaunchKind launch = variant == "graph"                       ? LaunchKind::Graph
                              : variant == "gsync" || variant == "pt" ? LaunchKind::Persistent
                                                                      : LaunchKind::Stream;
    // graph and gsync: their overhead from the even rows, checked on the odd ones.
    const bool split_rows = variant == "graph" || variant == "gsync";
    std::string split = "plain (launch_overhead and l2_bandwidth fitted on its rows up to L2/4)";
    if (split_rows) {
      const bool graph = launch == LaunchKind::Graph;
      const char* param = graph ? "graph_launch_overhead" : "grid_sync_overhead";
      const double a = small_kernel_overhead(rows, entry->spec, roof, [](size_t i) { return i % 2 == 0; });
      if (!(a > 0)) {  // no fit on the even rows: the shipped value saw the odd ones, so nothing is held out
        for (size_t i = 1; i < rows.size(); i += 2)
          run.skipped.push_back({gpu, "no positive overhead fitted on the even rows up to L2/4"});
        continue;
      }
      (graph ? roof.graph_launch_overhead : roof.grid_sync_overhead) = a;
      split = fmt::format("{}, odd rows ({} fitted on the even rows up to L2/4)", variant, param);
    } else if (variant == "pt") {
      split = "pt (held out: grid_sync_overhead of the gsync variant)";
    }
    for (size_t i = split_rows ? 1 : 0; i < rows.size(); i += split_rows ? 2 : 1) {
      const SmallKernelRow& r = rows[i];
      const double median = median_bandwidth(r);
      if (!(median > 0)) {
        run.skipped.push_back({gpu, "no bandwidth in the row"});
        continue;
      }
      KernelSpec k;
      k.bytes = r.volume;
      k.working_set = r.volume;  // the same buffers every launch
      k.launch = launch;
      ValidationCase c;
      c.gpu = gpu;
      c.split = split;
      c.id = fmt::format("{} {} {:.0f} kB", stem, variant, r.volume / 1024);
      c.measured = r.volume / median;
      c.predicted = solo_time(k, entry->spec, roof);
      c.baseline["plain roofline"] = r.volume / entry->spec.memory_bandwidth;
      c.baseline["uncalibrated roofline"] = solo_time(k, entry->spec, defaults);
      run.cases.push_back(c);
    }
  }
  return run;
}

}  // namespace

std::vector<ValidationRun> validate_gpu_benches(const std::string& dir, const PublishedOptions&) {
  const fs::path d(dir);
  if (!fs::is_directory(d / "gpu-stream") && !fs::is_directory(d / "gpu-small-kernels"))
    throw InputError(fmt::format("{}: expected the folders gpu-stream and gpu-small-kernels", dir));
  return {stream_run(d), small_kernels_run(d)};
}

}  // namespace vgpusim
