// What every experiment shares: its record in the raw file, its time budget, device facts, timing helpers.
// run_experiment is the one place where a failed experiment becomes a recorded error instead of a crash.
#include "hwcal/experiment.hpp"

#include "hwcal/stats.hpp"

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <set>

namespace vgpusim::hwcal {

Json Experiment::to_json() const {
  Json out = Json::object();
  out["name"] = name;
  out["kind"] = kind;
  out["truncated"] = truncated;
  out["error"] = error ? Json(*error) : Json();
  out["skipped"] = skipped ? Json(*skipped) : Json();
  out["wall_time_s"] = wall_time_s;
  out["params"] = params;
  out["repeats"] = repeats;
  out["summary"] = summary;
  return out;
}

std::int64_t monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000000000LL + now.tv_nsec;
}

long long ns_of(double seconds) { return std::llround(seconds * 1e9); }

void sleep_until_monotonic_ns(std::int64_t deadline_ns) {
  timespec target{};
  target.tv_sec = static_cast<time_t>(deadline_ns / 1000000000LL);
  target.tv_nsec = static_cast<long>(deadline_ns % 1000000000LL);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nullptr) == EINTR) {
  }
}

Deadline::Deadline(double seconds_from_now)
    : end_(std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(
               std::max(0.0, seconds_from_now)))) {}

double Deadline::remaining_s() const {
  return std::chrono::duration<double>(end_ - std::chrono::steady_clock::now()).count();
}

Deadline RunContext::suite_deadline(double nominal_s) const {
  const double until_run_end = std::chrono::duration<double>(run_end - std::chrono::steady_clock::now()).count();
  return Deadline(std::min(nominal_s * budget_scale, until_run_end));
}

DeviceInfo query_device(int ordinal) {
  DeviceInfo info;
  info.ordinal = ordinal;
  cudaDeviceProp properties{};
  HWCAL_CUDA(cudaGetDeviceProperties(&properties, ordinal));
  info.name = properties.name;
  info.cc_major = properties.major;
  info.cc_minor = properties.minor;
  info.sm_count = static_cast<unsigned>(properties.multiProcessorCount);
  info.l2_bytes = static_cast<std::size_t>(properties.l2CacheSize);
  info.total_memory_bytes = properties.totalGlobalMem;
  info.shared_per_block_optin_bytes = properties.sharedMemPerBlockOptin;
  info.max_threads_per_sm = static_cast<unsigned>(properties.maxThreadsPerMultiProcessor);
  info.mps_enabled = properties.mpsEnabled != 0;
  HWCAL_CUDA(cudaDeviceGetAttribute(&info.compute_mode, cudaDevAttrComputeMode, ordinal));
  return info;
}

std::size_t free_device_memory_bytes() {
  std::size_t free_bytes = 0, total_bytes = 0;
  HWCAL_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

void run_experiment(RunContext& context, Experiment experiment, const std::function<void(Experiment&)>& body) {
  const auto start = std::chrono::steady_clock::now();
  try {
    body(experiment);
  } catch (const std::exception& failure) {
    experiment.error = failure.what();
  }
  experiment.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string line = experiment.name + ": ";
  if (experiment.error) {
    line += "ERROR " + *experiment.error;
  } else if (experiment.skipped) {
    line += "skipped (" + *experiment.skipped + ")";
  } else {
    line += "done";
  }
  if (experiment.truncated) line += " (truncated by its time budget)";
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), " in %.1f s", experiment.wall_time_s);
  progress(line + seconds);
  context.emit(std::move(experiment));
}

void progress(const std::string& line) {
  std::fprintf(stderr, "hwcal: %s\n", line.c_str());
  std::fflush(stderr);
}

double time_with_events_s(cudaStream_t stream, const std::function<void()>& enqueue) {
  OwnedEvent start, stop;
  HWCAL_CUDA(cudaEventRecord(start.get(), stream));
  enqueue();
  HWCAL_CUDA(cudaEventRecord(stop.get(), stream));
  HWCAL_CUDA(cudaEventSynchronize(stop.get()));
  float milliseconds = 0;
  HWCAL_CUDA(cudaEventElapsedTime(&milliseconds, start.get(), stop.get()));
  return static_cast<double>(milliseconds) * 1e-3;
}

void time_repeats(Experiment& e, const Deadline& deadline, unsigned warmups, unsigned repeats,
                  const std::function<void()>& enqueue, double amount, const char* rate_key) {
  for (unsigned w = 0; w < warmups; ++w) time_with_events_s(nullptr, enqueue);
  std::vector<double> times, rates;
  for (unsigned r = 0; r < repeats; ++r) {
    if (deadline.expired()) {
      e.truncated = true;
      break;
    }
    const double seconds = time_with_events_s(nullptr, enqueue);
    Json repeat = Json::object();
    repeat["time_s"] = seconds;
    repeat[rate_key] = amount / seconds;
    e.repeats.push_back(repeat);
    times.push_back(seconds);
    rates.push_back(amount / seconds);
  }
  e.summary["time_s"] = summary_json(times);
  e.summary[rate_key] = summary_json(rates);
}

std::optional<ScalingPoint> time_scaling_point(Experiment& e, const Deadline& deadline, unsigned repeats,
                                               unsigned blocks, const std::function<void()>& enqueue,
                                               const DeviceBuffer<unsigned>& smids, double amount,
                                               const char* rate_key) {
  std::vector<double> times, rates;
  std::size_t distinct_sms = blocks;
  for (unsigned r = 0; r < repeats && !deadline.expired(); ++r) {
    const double seconds = time_with_events_s(nullptr, enqueue);
    const std::vector<unsigned> used = smids.download(blocks);
    const std::size_t distinct = std::set<unsigned>(used.begin(), used.end()).size();
    distinct_sms = std::min(distinct_sms, distinct);
    Json repeat = Json::object();
    repeat["blocks"] = blocks;
    repeat["distinct_sms"] = distinct;
    repeat["time_s"] = seconds;
    repeat[rate_key] = amount / seconds;
    e.repeats.push_back(repeat);
    times.push_back(seconds);
    rates.push_back(amount / seconds);
  }
  if (times.size() < repeats) e.truncated = true;
  if (times.empty()) return std::nullopt;
  ScalingPoint point{Json::object(), median_of(rates)};
  point.json["blocks"] = blocks;
  point.json["distinct_sms"] = distinct_sms;
  point.json["time_s"] = summary_json(times);
  point.json[rate_key] = summary_json(rates);
  return point;
}

}  // namespace vgpusim::hwcal
