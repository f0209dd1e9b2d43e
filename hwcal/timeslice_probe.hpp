// The time-slice probes' process machinery, shared by timeslice.probe (timeslice.cpp) and timeslice.handoff
// (timeslice_handoff.cpp): the probe kernel's runner and its records, the child processes that run it
// (`vgpusim-hwcal __child probe`, probe_child_main) and their replies.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hwcal/device_kernels.hpp"
#include "hwcal/experiment.hpp"
#include "hwcal/subprocess.hpp"

namespace vgpusim::hwcal {

inline constexpr unsigned kGapCapacity = 1u << 20;  // 24 MiB of records; ~1000 gaps per block in 2 s is expected
inline constexpr double kChildAnswer_s = 45;        // CUDA start-up of both children, with generous margin
inline constexpr unsigned kPacedThreads = 256;      // threads per block of timeslice.paced's fma_chain kernels

struct ProbeRun {
  int pid = 0;
  unsigned gap_count = 0;  // may exceed the records kept (capacity)
  std::vector<unsigned long long> block_start_ns, block_end_ns, block_reads;
  std::vector<unsigned> block_capped;  // 1: the block stopped at the iteration cap, before its duration
  std::vector<TimesliceGap> gaps;
};

class ProbeRunner {
 public:
  ProbeRunner(unsigned blocks, unsigned capacity)
      : blocks_(blocks), capacity_(capacity), gaps_(capacity), count_(1), start_(blocks), end_(blocks),
        reads_(blocks), capped_(blocks) {}

  // Zeroes the gap count; done before waiting for a shared start time, so the start launches the probe at once.
  void reset() { count_.zero(); }

  ProbeRun run(double duration_s, unsigned long long threshold_ns) {
    reset();
    return launch(duration_s, threshold_ns);
  }

  ProbeRun launch(double duration_s, unsigned long long threshold_ns) {
    start(duration_s, threshold_ns);
    return collect();
  }

  // Launches the probe without waiting for it (reset() first when the runner was used before).
  void start(double duration_s, unsigned long long threshold_ns) {
    const TimesliceProbeBuffers buffers{gaps_.get(), capacity_,   count_.get(), start_.get(),
                                        end_.get(),  reads_.get(), capped_.get()};
    HWCAL_CUDA(launch_timeslice_probe(blocks_, static_cast<unsigned long long>(duration_s * 1e9), threshold_ns,
                                      buffers, nullptr));
  }

  // Waits for the probe and reads its records.
  ProbeRun collect() {
    HWCAL_CUDA(cudaDeviceSynchronize());
    ProbeRun out;
    out.pid = static_cast<int>(getpid());
    out.gap_count = count_.download(1)[0];
    out.gaps = gaps_.download(std::min(out.gap_count, capacity_));
    out.block_start_ns = start_.download(blocks_);
    out.block_end_ns = end_.download(blocks_);
    out.block_reads = reads_.download(blocks_);
    out.block_capped = capped_.download(blocks_);
    return out;
  }

 private:
  unsigned blocks_, capacity_;
  DeviceBuffer<TimesliceGap> gaps_;
  DeviceBuffer<unsigned> count_;
  DeviceBuffer<unsigned long long> start_, end_, reads_;
  DeviceBuffer<unsigned> capped_;
};

void write_run(const ProbeRun& run, const std::string& path);
ProbeRun read_run(const std::string& path);
// Blocks that stopped at the iteration cap before their duration.
unsigned capped_blocks(const ProbeRun& run);
// Seconds from `origin_ns` (both %globaltimer).
double relative_s(unsigned long long ns, unsigned long long origin_ns);
// Earliest block start and latest block end of a probe, in %globaltimer ns.
unsigned long long first_start_ns(const ProbeRun& run);
unsigned long long last_end_ns(const ProbeRun& run);

// A child's reply to `run`/`run2`: host times of its first launch and of seeing it end, and its record files.
struct RunReply {
  std::int64_t launched_ns = 0, synced_ns = 0;
  std::vector<std::string> paths;
};
// Reads a child's `done` reply, which must name `paths` record files.
RunReply parse_reply(const std::string& reply, std::size_t paths);

// A temporary folder removed with everything in it when it goes out of scope.
struct TemporaryDirectory {
  std::string path;
  explicit TemporaryDirectory(const std::string& prefix);
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
};

// Whether an experiment of two processes may start: the compute mode lets them share the GPU (else `e` is skipped)
// and at least `min_budget_s` is left (else `e` is truncated).
bool two_processes_can_run(const RunContext& context, const Deadline& deadline, double min_budget_s, Experiment& e);

// Two probe children (this program re-executed), each answered `ready` within kChildAnswer_s; returns whether
// each is an MPS client.
std::vector<bool> start_probe_children(RunContext& context, unsigned blocks, double duration_s,
                                       unsigned long long threshold_ns, const std::string& out_prefix,
                                       std::vector<std::unique_ptr<ChildProcess>>& children);

// timeslice.handoff (timeslice_handoff.cpp); `slice_s`: the probe's median slice, 0 when unknown.
void run_handoff(RunContext& context, const Deadline& deadline, unsigned long long threshold_ns, double slice_s);
// timeslice.paced (timeslice_paced.cpp).
void run_paced(RunContext& context, const Deadline& deadline);

}  // namespace vgpusim::hwcal
