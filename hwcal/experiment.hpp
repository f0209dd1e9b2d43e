// What every experiment shares: its record in the raw file, its time budget, the device facts it sizes work from,
// and owned CUDA resources (buffers, streams, events) that release themselves on every path, errors included.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hwcal/check.hpp"
#include "hwcal/json.hpp"

namespace vgpusim::hwcal {

inline constexpr const char* kRawSchema = "vgpusim.hwcal.raw/1";

// One entry of "experiments" in the raw file; see docs/hwcal.md for the fields of each kind.
struct Experiment {
  std::string name;  // unique in a file, "<suite>.<variant>..."
  std::string kind;  // bandwidth | bandwidth_sm_scaling | compute | compute_sm_scaling | gemm | latency | launch |
                     // timeslice | telemetry | corun
  Json params = Json::object();
  Json repeats = Json::array();
  Json summary = Json::object();
  bool truncated = false;             // its time budget ran out: fewer repeats or points than planned
  std::optional<std::string> error;   // an unexpected failure (file:line: call: error)
  std::optional<std::string> skipped;  // not measurable here (feature missing), not a failure
  double wall_time_s = 0;

  Json to_json() const;
};

// CLOCK_MONOTONIC in ns: one clock for all processes of this machine (children synchronize on it).
std::int64_t monotonic_ns();
// A span in seconds as whole ns, rounded (the children's command lines carry ns).
long long ns_of(double seconds);
void sleep_until_monotonic_ns(std::int64_t deadline_ns);

class Deadline {
 public:
  explicit Deadline(double seconds_from_now);
  bool expired() const { return remaining_s() <= 0; }
  double remaining_s() const;

 private:
  std::chrono::steady_clock::time_point end_;
};

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  unsigned sm_count = 0;
  std::size_t l2_bytes = 0;
  std::size_t total_memory_bytes = 0;
  std::size_t shared_per_block_optin_bytes = 0;
  unsigned max_threads_per_sm = 0;
  int compute_mode = 0;  // cudaComputeMode
  bool mps_enabled = false;  // this process is already an MPS client
};

DeviceInfo query_device(int ordinal);
std::size_t free_device_memory_bytes();

struct RunContext {
  DeviceInfo device;
  std::string executable;  // this program, re-executed for the multi-process experiments
  double budget_scale = 1.0;
  std::function<void(Experiment&&)> emit;  // appends to the raw file and rewrites it
  // Seconds for a suite: its nominal budget times budget_scale, never past the whole run's end.
  Deadline suite_deadline(double nominal_s) const;
  std::chrono::steady_clock::time_point run_end;
};

// Runs body(experiment), timing it and turning an exception into experiment.error; then emits it.
void run_experiment(RunContext& context, Experiment experiment, const std::function<void(Experiment&)>& body);

// Prints "hwcal: ..." progress to stderr.
void progress(const std::string& line);

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count > 0) HWCAL_CUDA(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
  }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept : data_(other.data_), count_(other.count_) {
    other.data_ = nullptr;
    other.count_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = other.data_;
      count_ = other.count_;
      other.data_ = nullptr;
      other.count_ = 0;
    }
    return *this;
  }
  T* get() const { return data_; }
  std::size_t count() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }
  void zero() { HWCAL_CUDA(cudaMemset(data_, 0, bytes())); }
  std::vector<T> download(std::size_t count) const {
    std::vector<T> host(count);
    if (count > 0) HWCAL_CUDA(cudaMemcpy(host.data(), data_, count * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  void release() {
    if (data_ != nullptr) static_cast<void>(cudaFree(data_));  // best effort: may run while unwinding
    data_ = nullptr;
  }
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

class OwnedStream {
 public:
  OwnedStream() { HWCAL_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~OwnedStream() { static_cast<void>(cudaStreamDestroy(stream_)); }
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class OwnedEvent {
 public:
  OwnedEvent() { HWCAL_CUDA(cudaEventCreate(&event_)); }
  ~OwnedEvent() { static_cast<void>(cudaEventDestroy(event_)); }
  OwnedEvent(const OwnedEvent&) = delete;
  OwnedEvent& operator=(const OwnedEvent&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Seconds between two recorded events on `stream` around enqueue(); waits for completion.
double time_with_events_s(cudaStream_t stream, const std::function<void()>& enqueue);

// The usual measurement: `warmups` untimed runs, then up to `repeats` timed ones (stopping, and marking the
// experiment truncated, when `deadline` expires). Each repeat records time_s and `rate_key` = amount / time; the
// summary gets their statistics under the same keys.
void time_repeats(Experiment& e, const Deadline& deadline, unsigned warmups, unsigned repeats,
                  const std::function<void()>& enqueue, double amount, const char* rate_key);

// One point of an SM-scaling sweep: up to `repeats` timed runs of enqueue() on `blocks` blocks that write their SM
// ids into `smids` (fewer, marking the experiment truncated, when `deadline` expires). Each run is recorded in
// e.repeats with blocks, the distinct SMs its blocks ran on, time_s and `rate_key` = amount / time. Returns the
// point (blocks, the fewest distinct SMs of its runs, time and rate statistics) and the median rate; nothing when
// no run fitted before the deadline.
struct ScalingPoint {
  Json json;
  double median_rate = 0;
};
std::optional<ScalingPoint> time_scaling_point(Experiment& e, const Deadline& deadline, unsigned repeats,
                                               unsigned blocks, const std::function<void()>& enqueue,
                                               const DeviceBuffer<unsigned>& smids, double amount,
                                               const char* rate_key);

}  // namespace vgpusim::hwcal
