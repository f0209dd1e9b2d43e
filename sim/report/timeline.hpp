// The timeline: a Chrome trace (JSON with only complete `X`, metadata `M` and counter `C` events) that opens in
// Perfetto and chrome://tracing: one process per GPU or partition, with a scheduler track (switches), a track per
// tenant for its kernels and one for when it holds the GPU, and counters for utilization and memory. Trace replays
// add a track per stream (ops with their kernel names and details) and per host thread (runtime calls), with flow
// arrows from each launch to its kernel. A window keeps the file bounded on long runs.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "sim/run/simulation.hpp"

namespace vgpusim {

class Timeline final : public RunObserver {
 public:
  Timeline() = default;
  // Keeps only what happens in [from, to] (s of simulated time): intervals that overlap it, counters inside it.
  Timeline(double from, double to) : from_(from), to_(to) {}

  // RunObserver
  void add_process(Engine::GpuIndex gpu, const std::string& name) override;
  void add_tenant(Engine::ContextIndex context, Engine::GpuIndex gpu, const std::string& name) override;
  void kernel(Engine::ContextIndex context, double start, double end, const KernelNote& note) override;
  void host_call(Engine::ContextIndex context, uint32_t thread, const std::string& thread_name, double start,
                 double end, const std::string& name, uint64_t flow) override;
  void memory(Engine::GpuIndex gpu, double now, double bytes_used) override;
  void on_rates(Engine::GpuIndex gpu, double now, std::span<const Engine::ContextIndex> contexts,
                std::span<const double> rates, bool busy) override;
  // Closes open intervals at the end of the run.
  void finish(double end) override;

  std::string to_json() const;

 private:
  struct Event {
    char phase;  // 'X', 'C', or the flow ends 's' and 'f'
    uint32_t pid, tid;
    double ts, dur;  // s
    double value;    // counters
    std::string name;
    std::string args;  // X: members of its args object
    uint64_t id = 0;   // flows
  };
  bool keeps(double start, double end) const { return end >= from_ && start <= to_; }
  void push(Event e);
  struct ProcessState {
    std::string name;
    double switch_since = -1;  // busy but nobody running since (s), or -1
    double utilization = -1;
  };
  struct TenantState {
    Engine::GpuIndex gpu = 0;
    std::string name;
    double running_since = -1;
  };
  std::vector<ProcessState> processes_;
  std::vector<TenantState> tenants_;
  std::vector<Event> events_;
  std::map<std::pair<uint32_t, uint32_t>, std::string> track_names_;  // (pid, tid) of stream and host tracks
  double from_ = -std::numeric_limits<double>::infinity(), to_ = std::numeric_limits<double>::infinity();
};

}  // namespace vgpusim
