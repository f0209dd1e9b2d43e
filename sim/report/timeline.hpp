// The timeline: a Chrome trace (JSON with only complete `X`, metadata `M` and counter `C` events) that opens in
// Perfetto and chrome://tracing: one process per GPU or partition, with a scheduler track (switches), a track per
// tenant for its kernels and one for when it holds the GPU, and counters for utilization and memory.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/run/simulation.hpp"

namespace vgpusim {

class Timeline final : public RunObserver {
 public:
  // RunObserver
  void add_process(Engine::GpuIndex gpu, const std::string& name) override;
  void add_tenant(Engine::ContextIndex context, Engine::GpuIndex gpu, const std::string& name) override;
  void kernel(Engine::ContextIndex context, double start, double end, const std::string& name) override;
  void memory(Engine::GpuIndex gpu, double now, double bytes_used) override;
  void on_rates(Engine::GpuIndex gpu, double now, std::span<const Engine::ContextIndex> contexts,
                std::span<const double> rates, bool busy) override;
  // Closes open intervals at the end of the run.
  void finish(double end) override;

  std::string to_json() const;

 private:
  struct Event {
    char phase;  // 'X' or 'C'
    uint32_t pid, tid;
    double ts, dur;  // s
    double value;    // counters
    std::string name;
  };
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
};

}  // namespace vgpusim
