// Time-slice probe: grid = SM count, one thread per block, spinning on %globaltimer and logging every jump above a
// threshold; alone, then as two processes started together. Gaps = the other's slice + switches; see analysis.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <numeric>
#include <set>
#include <sstream>

#include "hwcal/device_kernels.hpp"
#include "hwcal/stats.hpp"
#include "hwcal/subprocess.hpp"
#include "hwcal/suites.hpp"
#include "hwcal/timeslice_analysis.hpp"

namespace vgpusim::hwcal {
namespace {

constexpr double kTimerWindow_s = 5e-3;
constexpr double kLoopCalibration_s = 20e-3;
constexpr double kSoloDuration_s = 0.5;
constexpr double kPairDuration_s = 2.0;
constexpr unsigned kPairRepeats = 2;
constexpr unsigned kGapCapacity = 1u << 20;  // 24 MiB of records; ~1000 gaps per block in 2 s is expected
constexpr double kMinThreshold_s = 2e-6;
constexpr double kChildAnswer_s = 45;  // CUDA start-up of both children, with generous margin
// timeslice.handoff: kernels far shorter than a slice (2 ms measured on an H200) so that the first runs out of work
// inside its slice; the second launches well inside the first's kernel.
constexpr double kHandoffKernel_s = 0.5e-3;
constexpr double kHandoffOffset_s = 0.15e-3;
constexpr double kHandoffAgain_s = 0.2e-3;
constexpr double kHandoffLead_s = 20e-3;           // both children sleep until the shared start
constexpr double kHandoffLaunchMargin_s = 100e-6;  // the second must launch at least this long before the first ends
constexpr double kHandoffAnswer_s = 5;             // a repeat's reply; the children are already up
constexpr double kHandoffMinBudget_s = 13;         // ~280 repeats of ~28 ms, the children's start, 3 s spare
constexpr unsigned kHandoffRepeats = 20;
// Dense up to the end of a 2 ms slice less the kernel, so that a hold to the slice's end is told from a grace.
constexpr std::array<double, 13> kHandoffGaps_s = {0,      10e-6,  25e-6,   50e-6,   100e-6,  200e-6, 400e-6,
                                                   800e-6, 1e-3,   1.2e-3,  1.3e-3,  1.4e-3,  1.6e-3};
constexpr unsigned kHandoffGapCapacity = 1u << 12;
constexpr double kSpinLead_s = 1e-3;  // a child sleeps until this long before its start, then spins
constexpr double kSettle_s = 6e-3;    // a child reads its records back no sooner than this after its start

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

void write_run(const ProbeRun& run, const std::string& path) {
  std::ofstream out(path);
  out << "probe " << run.pid << " " << run.gap_count << "\n";
  for (std::size_t b = 0; b < run.block_start_ns.size(); ++b) {
    out << "block " << b << " " << run.block_start_ns[b] << " " << run.block_end_ns[b] << " " << run.block_reads[b]
        << " " << run.block_capped[b] << "\n";
  }
  for (const TimesliceGap& gap : run.gaps) {
    out << "gap " << gap.block << " " << gap.smid << " " << gap.from_ns << " " << gap.to_ns << "\n";
  }
  HWCAL_REQUIRE(out.good(), "could not write " + path);
}

ProbeRun read_run(const std::string& path) {
  std::ifstream in(path);
  HWCAL_REQUIRE(in.good(), "could not read " + path);
  ProbeRun run;
  std::string line, tag;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    fields >> tag;
    if (tag == "probe") {
      fields >> run.pid >> run.gap_count;
    } else if (tag == "block") {
      std::size_t b = 0;
      unsigned long long start = 0, end = 0, reads = 0;
      unsigned capped = 0;
      fields >> b >> start >> end >> reads >> capped;
      run.block_start_ns.push_back(start);
      run.block_end_ns.push_back(end);
      run.block_reads.push_back(reads);
      run.block_capped.push_back(capped);
    } else if (tag == "gap") {
      TimesliceGap gap{};
      fields >> gap.block >> gap.smid >> gap.from_ns >> gap.to_ns;
      run.gaps.push_back(gap);
    }
    HWCAL_REQUIRE(!fields.fail(), "bad line in " + path + ": " + line);
  }
  return run;
}

unsigned capped_blocks(const ProbeRun& run) {
  return static_cast<unsigned>(std::count_if(run.block_capped.begin(), run.block_capped.end(),
                                             [](unsigned capped) { return capped != 0; }));
}

// A block that stopped at the iteration cap saw less than its duration (the timer stood still or ran slow): its
// reads, gaps and end are those of a shorter probe.
void warn_if_capped(const ProbeRun& run, const std::string& which) {
  const unsigned capped = capped_blocks(run);
  if (capped == 0) return;
  progress("timeslice.probe: warning: " + std::to_string(capped) + " of " + std::to_string(run.block_capped.size()) +
           " blocks of the " + which + " stopped at the iteration cap before their duration");
}

double relative_s(unsigned long long ns, unsigned long long origin_ns) {
  return static_cast<double>(static_cast<long long>(ns - origin_ns)) * 1e-9;
}

// Block 0's timeline; every block of a context is switched together, so one block stands for the process.
ProbeTimeline timeline_of(const ProbeRun& run, unsigned long long origin_ns) {
  ProbeTimeline out;
  out.start_s = relative_s(run.block_start_ns.at(0), origin_ns);
  out.end_s = relative_s(run.block_end_ns.at(0), origin_ns);
  for (const TimesliceGap& gap : run.gaps) {
    if (gap.block == 0) out.gaps.push_back({relative_s(gap.from_ns, origin_ns), relative_s(gap.to_ns, origin_ns)});
  }
  std::sort(out.gaps.begin(), out.gaps.end(), [](const Interval& x, const Interval& y) { return x.from_s < y.from_s; });
  return out;
}

Json run_json(const char* label, unsigned repeat, unsigned process, const ProbeRun& run,
              unsigned long long origin_ns, const std::vector<double>& pair_gaps_block0) {
  const auto blocks = static_cast<unsigned>(run.block_start_ns.size());
  const std::set<unsigned> sampled{0, blocks / 2, blocks - 1};
  std::vector<double> gaps_per_block(blocks, 0.0), reads;
  Json gaps = Json::array();
  for (const TimesliceGap& gap : run.gaps) {
    if (gap.block < blocks) gaps_per_block[gap.block] += 1;
    if (sampled.count(gap.block) == 0) continue;
    Json record = Json::object();
    record.set("block", gap.block);
    record.set("smid", gap.smid);
    record.set("from_s", relative_s(gap.from_ns, origin_ns));
    record.set("to_s", relative_s(gap.to_ns, origin_ns));
    gaps.push(record);
  }
  for (const unsigned long long r : run.block_reads) reads.push_back(static_cast<double>(r));
  Json out = Json::object();
  out.set("run", label);
  out.set("repeat", repeat);
  out.set("process", process);
  out.set("pid", run.pid);
  out.set("start_s", relative_s(run.block_start_ns.at(0), origin_ns));
  out.set("end_s", relative_s(run.block_end_ns.at(0), origin_ns));
  out.set("blocks", blocks);
  out.set("gap_count", run.gap_count);
  out.set("gap_overflow", run.gap_count > run.gaps.size());
  out.set("gaps_per_block", summary_json(gaps_per_block));
  out.set("reads_per_block", summary_json(reads));
  out.set("capped_blocks", capped_blocks(run));
  out.set("block0_gap_s", summary_json(pair_gaps_block0));
  out.set("sampled_blocks", Json::array_of(sampled));
  out.set("gaps", gaps);
  return out;
}

std::vector<double> lengths_of(const std::vector<Interval>& intervals) {
  std::vector<double> out;
  for (const Interval& x : intervals) out.push_back(x.length());
  return out;
}

std::string argument_value(const std::vector<std::string>& arguments, const std::string& name) {
  for (std::size_t i = 0; i + 1 < arguments.size(); ++i) {
    if (arguments[i] == name) return arguments[i + 1];
  }
  throw HwcalError("child: missing " + name);
}

}  // namespace

int probe_child_main(const std::vector<std::string>& arguments) {
  try {
    const auto blocks = static_cast<unsigned>(std::stoul(argument_value(arguments, "--blocks")));
    const double duration_s = std::stod(argument_value(arguments, "--duration-s"));
    const unsigned long long threshold_ns = std::stoull(argument_value(arguments, "--threshold-ns"));
    const std::string out_path = argument_value(arguments, "--out");
    HWCAL_CUDA(cudaSetDevice(0));
    HWCAL_CUDA(cudaFree(nullptr));
    ProbeRunner runner(blocks, kGapCapacity);
    ProbeRunner again(blocks, kHandoffGapCapacity);  // the second kernel of `run2`
    runner.run(1e-3, ~0ull >> 1);  // warm-up: module load
    again.run(1e-3, ~0ull >> 1);
    int mps = 0;
    HWCAL_CUDA(cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, 0));
    write_parent_line("ready " + std::to_string(getpid()) + " " + std::to_string(mps));
    unsigned run_index = 0;
    // "run START_NS [DURATION_NS]": one probe at START_NS (CLOCK_MONOTONIC). "run2 START_NS D1_NS GAP_NS D2_NS": a
    // probe of D1, then, GAP after the host saw it end, one of D2. Replies "done LAUNCH_NS SYNCED_NS PATH..." (when
    // the first probe was launched and when the host saw it end; one file per probe). Records are read back no
    // sooner than kSettle_s after START_NS, so that the copies do not touch the GPU while the other process's
    // kernels run (no effect on the 2 s probes).
    while (const auto line = read_parent_line()) {
      std::istringstream command(*line);
      std::string verb;
      long long start_ns = 0;
      command >> verb >> start_ns;
      if (verb != "run" && verb != "run2") break;
      HWCAL_REQUIRE(!command.fail(), "probe child: bad command: " + *line);
      long long first_ns = static_cast<long long>(duration_s * 1e9), gap_ns = 0, second_ns = 0;
      if (verb == "run2") {
        command >> first_ns >> gap_ns >> second_ns;
        HWCAL_REQUIRE(!command.fail(), "probe child: bad command: " + *line);
      } else if (!(command >> first_ns)) {
        first_ns = static_cast<long long>(duration_s * 1e9);
      }
      runner.reset();
      again.reset();
      HWCAL_CUDA(cudaDeviceSynchronize());
      // Sleep to just before the start, then spin: the timer's wake-up slack would shift the launch.
      sleep_until_monotonic_ns(start_ns - static_cast<std::int64_t>(kSpinLead_s * 1e9));
      while (monotonic_ns() < start_ns) {
      }
      const std::int64_t launched_ns = monotonic_ns();
      runner.start(static_cast<double>(first_ns) * 1e-9, threshold_ns);
      HWCAL_CUDA(cudaDeviceSynchronize());
      const std::int64_t synced_ns = monotonic_ns();
      if (verb == "run2") {
        while (monotonic_ns() < synced_ns + gap_ns) {
        }  // spin: a sleep would add the scheduler's wake-up latency to the gap
        again.start(static_cast<double>(second_ns) * 1e-9, threshold_ns);
        HWCAL_CUDA(cudaDeviceSynchronize());
      }
      const std::int64_t settle_ns = start_ns + static_cast<std::int64_t>(kSettle_s * 1e9);
      if (monotonic_ns() < settle_ns) sleep_until_monotonic_ns(settle_ns);
      std::vector<ProbeRun> runs;
      runs.push_back(runner.collect());
      if (verb == "run2") runs.push_back(again.collect());
      std::string reply = "done " + std::to_string(launched_ns) + " " + std::to_string(synced_ns);
      for (const ProbeRun& run : runs) {
        const std::string path = out_path + "." + std::to_string(run_index++);
        write_run(run, path);
        reply += " " + path;
      }
      write_parent_line(reply);
    }
    return 0;
  } catch (const std::exception& failure) {
    write_parent_line(std::string("error ") + failure.what());
    return 1;
  }
}

namespace {

// Earliest block start and latest block end of a probe, in %globaltimer ns.
unsigned long long first_start_ns(const ProbeRun& run) {
  return *std::min_element(run.block_start_ns.begin(), run.block_start_ns.end());
}
unsigned long long last_end_ns(const ProbeRun& run) {
  return *std::max_element(run.block_end_ns.begin(), run.block_end_ns.end());
}

// A child's reply to `run`/`run2`: host times of its first launch and of seeing it end, and its record files.
struct RunReply {
  std::int64_t launched_ns = 0, synced_ns = 0;
  std::vector<std::string> paths;
};

RunReply parse_reply(const std::string& reply, std::size_t paths) {
  HWCAL_REQUIRE(reply.rfind("done ", 0) == 0, "probe child: " + reply);
  std::istringstream in(reply.substr(5));
  RunReply out;
  in >> out.launched_ns >> out.synced_ns;
  HWCAL_REQUIRE(!in.fail(), "probe child: bad reply: " + reply);
  for (std::string path; in >> path;) out.paths.push_back(path);
  HWCAL_REQUIRE(out.paths.size() == paths, "probe child: expected " + std::to_string(paths) + " files: " + reply);
  return out;
}

// A temporary folder removed with everything in it when it goes out of scope.
struct TemporaryDirectory {
  std::string path;
  explicit TemporaryDirectory(const std::string& prefix) {
    std::string name = "/tmp/" + prefix + "-XXXXXX";
    HWCAL_REQUIRE(mkdtemp(name.data()) != nullptr, "mkdtemp failed");
    path = name;
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
};

// Two probe children (this program re-executed), each answered `ready` within kChildAnswer_s; returns whether
// each is an MPS client.
std::vector<bool> start_probe_children(RunContext& context, unsigned blocks, double duration_s,
                                       unsigned long long threshold_ns, const std::string& out_prefix,
                                       std::vector<std::unique_ptr<ChildProcess>>& children) {
  for (unsigned p = 0; p < 2; ++p) {
    children.push_back(std::make_unique<ChildProcess>(
        context.executable,
        std::vector<std::string>{"__child", "probe", "--blocks", std::to_string(blocks), "--duration-s",
                                 std::to_string(duration_s), "--threshold-ns", std::to_string(threshold_ns), "--out",
                                 out_prefix + std::to_string(p)},
        std::vector<std::string>{}));
  }
  std::vector<bool> mps;
  const std::int64_t ready_by_ns = monotonic_ns() + static_cast<std::int64_t>(kChildAnswer_s * 1e9);
  for (auto& child : children) {
    const double left_s = std::max(0.1, static_cast<double>(ready_by_ns - monotonic_ns()) * 1e-9);
    const std::string ready = child->read_reply(left_s);
    HWCAL_REQUIRE(ready.rfind("ready ", 0) == 0, "probe child: " + ready);
    mps.push_back(ready.back() == '1');
  }
  return mps;
}

long long ns_of(double seconds) { return std::llround(seconds * 1e9); }

// timeslice.handoff: how long a context that ran out of work keeps the GPU from another that waits, and what the
// switch then costs. Two processes; per repeat the first runs a kernel of kHandoffKernel_s (all SMs) and the second
// launches one kHandoffOffset_s later, while the first's runs, so it waits. Plain handoff: the first has nothing
// more, and the second's start minus the first's end is the handoff (grace + switch of an idle context). Sweep: the
// first launches another kernel a host gap g after it saw its first end; whether that one starts before the
// second's says whether the first kept the GPU through g. Roles alternate between repeats. A repeat whose launches
// came out of order (the second launched before the first, or too late to find the first's kernel running, or the
// second's kernel started first) is dropped and counted. `slice_s`: the probe's slice, 0 when unknown.
void run_handoff(RunContext& context, const Deadline& deadline, unsigned long long threshold_ns, double slice_s) {
  Experiment experiment;
  experiment.name = "timeslice.handoff";
  experiment.kind = "timeslice";
  run_experiment(context, std::move(experiment), [&](Experiment& e) {
    const unsigned blocks = context.device.sm_count;
    e.params.set("blocks", blocks);
    e.params.set("threads_per_block", 1);
    e.params.set("kernel_s", kHandoffKernel_s);
    e.params.set("second_launch_offset_s", kHandoffOffset_s);
    e.params.set("second_kernel_s", kHandoffAgain_s);
    e.params.set("repeats_per_point", kHandoffRepeats);
    e.params.set("host_gaps_s", Json::array_of(kHandoffGaps_s));
    e.params.set("probe_slice_s", slice_s);
    e.params.set("timing", "%globaltimer: the first's latest block end, the second's earliest block start; host "
                           "launches on CLOCK_MONOTONIC");
    if (context.device.compute_mode != cudaComputeModeDefault) {
      e.skipped = "compute mode is not Default: two processes cannot share the GPU";
      return;
    }
    if (deadline.remaining_s() < kHandoffMinBudget_s) {
      e.truncated = true;
      return;
    }
    const TemporaryDirectory directory("vgpusim-hwcal-handoff");
    std::vector<std::unique_ptr<ChildProcess>> children;
    const std::vector<bool> mps =
        start_probe_children(context, blocks, kHandoffKernel_s, threshold_ns, directory.path + "/handoff", children);
    if (mps[0] || mps[1]) {
      e.skipped = "the probe children are MPS clients: no time-slicing to measure";
      for (auto& child : children) child->finish(5);
      return;
    }
    struct Repeat {
      bool valid = false, kept = false;
      double handoff_s = 0;  // kept: 0
      double gpu_gap_s = 0;  // the first's second kernel's start minus its first's end (run2 only)
    };
    // One repeat; host_gap_s < 0: plain handoff.
    auto repeat = [&](unsigned first, double host_gap_s) {
      const std::int64_t start_ns = monotonic_ns() + ns_of(kHandoffLead_s);
      const unsigned second = 1 - first;
      const bool sweep = host_gap_s >= 0;
      const std::string kernel_ns = std::to_string(ns_of(kHandoffKernel_s));
      children[first]->send_line(sweep ? "run2 " + std::to_string(start_ns) + " " + kernel_ns + " " +
                                             std::to_string(ns_of(host_gap_s)) + " " +
                                             std::to_string(ns_of(kHandoffAgain_s))
                                       : "run " + std::to_string(start_ns) + " " + kernel_ns);
      children[second]->send_line("run " + std::to_string(start_ns + ns_of(kHandoffOffset_s)) + " " + kernel_ns);
      const RunReply a_reply = parse_reply(children[first]->read_reply(kHandoffAnswer_s), sweep ? 2 : 1);
      const RunReply b_reply = parse_reply(children[second]->read_reply(kHandoffAnswer_s), 1);
      const ProbeRun a = read_run(a_reply.paths[0]);
      const ProbeRun b = read_run(b_reply.paths[0]);
      Repeat out;
      const double launch_lag_s = static_cast<double>(b_reply.launched_ns - a_reply.launched_ns) * 1e-9;
      out.valid = launch_lag_s > 0 && launch_lag_s < kHandoffKernel_s - kHandoffLaunchMargin_s &&
                  first_start_ns(b) >= first_start_ns(a);
      if (!out.valid) return out;
      const unsigned long long origin = first_start_ns(a);
      const double a_end = relative_s(last_end_ns(a), origin);
      const double b_start = relative_s(first_start_ns(b), origin);
      double a_again = std::numeric_limits<double>::infinity();
      if (sweep) {
        a_again = relative_s(first_start_ns(read_run(a_reply.paths[1])), origin);
        out.gpu_gap_s = a_again - a_end;
      }
      const HandoffOutcome outcome = handoff_outcome(a_end, a_again, b_start);
      out.kept = outcome.kept;
      out.handoff_s = outcome.gap_s;
      return out;
    };
    unsigned dropped = 0, overlapping = 0, plain_overlapping = 0;
    std::vector<double> handoff;
    for (unsigned r = 0; r < kHandoffRepeats; ++r) {
      if (deadline.remaining_s() < 3) {
        e.truncated = true;
        break;
      }
      const Repeat x = repeat(r % 2, -1);
      if (!x.valid) {
        ++dropped;
      } else if (x.handoff_s < 0) {
        ++plain_overlapping;  // the second did not wait: no time-slicing between them
      } else {
        handoff.push_back(x.handoff_s);
      }
    }
    Json sweep = Json::array();
    std::vector<double> gaps, kept_share, offsets;
    for (const double g : kHandoffGaps_s) {
      std::vector<double> kept, lost_handoffs, kept_gpu_gaps;
      for (unsigned r = 0; r < kHandoffRepeats; ++r) {
        if (deadline.remaining_s() < 3) {
          e.truncated = true;
          break;
        }
        const Repeat x = repeat(r % 2, g);
        if (!x.valid) {
          ++dropped;
          continue;
        }
        if (!x.kept && x.handoff_s < 0) {
          ++overlapping;  // the second did not wait: says nothing about keeping the GPU
          continue;
        }
        kept.push_back(x.kept ? 1.0 : 0.0);
        if (x.kept) {
          kept_gpu_gaps.push_back(x.gpu_gap_s);
          offsets.push_back(x.gpu_gap_s - g);
        } else {
          lost_handoffs.push_back(x.handoff_s);
        }
      }
      if (e.truncated) break;
      const double share =
          kept.empty() ? 0.0 : std::accumulate(kept.begin(), kept.end(), 0.0) / static_cast<double>(kept.size());
      Json point = Json::object();
      point.set("host_gap_s", g);
      point.set("repeats", kept.size());
      point.set("kept_share", share);
      point.set("kept_gpu_gap_s", summary_json(kept_gpu_gaps));
      point.set("handoff_s", summary_json(lost_handoffs));
      sweep.push(point);
      if (!kept.empty()) {
        gaps.push_back(g);
        kept_share.push_back(share);
      }
    }
    for (auto& child : children) child->finish(5);
    e.summary.set("handoff_s", summary_json(handoff));
    e.summary.set("overlapping_repeats", plain_overlapping);
    e.summary.set("sweep_overlapping_repeats", overlapping);
    e.summary.set("dropped_repeats", dropped);
    e.summary.set("sweep", sweep);
    // The GPU gap is the host gap plus the host's synchronization and launch latency: the crossing is read on the
    // GPU's axis.
    const double offset = offsets.empty() ? 0.0 : median_of(offsets);
    e.summary.set("launch_offset_s", offset);
    // A crossing only where the sweep brackets it: every point measured, not every gap kept (then only a lower
    // bound), and not near the end of the first's slice (then the slice, not a grace, ended its hold).
    const bool complete = !e.truncated && gaps.size() == kHandoffGaps_s.size();
    const bool all_kept =
        complete && std::all_of(kept_share.begin(), kept_share.end(), [](double k) { return k >= 0.5; });
    const bool never_kept = !kept_share.empty() && kept_share.front() < 0.5;
    const double crossing = grace_crossing_s(gaps, kept_share) + (never_kept ? 0.0 : offset);
    // The bracket's upper end (the first gap mostly lost) against what is left of the first's slice after its
    // kernel: a hold that lasts to the slice's end lands there whatever the grace, and says nothing about one.
    double first_lost = 0;
    for (std::size_t i = 0; i < gaps.size(); ++i)
      if (kept_share[i] < 0.5) {
        first_lost = gaps[i] + offset;
        break;
      }
    const bool slice_known = slice_s > 0;
    const bool bounded_by_slice =
        slice_known && !never_kept && first_lost >= slice_s - kHandoffKernel_s - kHandoffLaunchMargin_s;
    e.summary.set("grace_bounded_by_slice", bounded_by_slice);
    if (all_kept) e.summary.set("grace_at_least_s", gaps.back() + offset);
    const bool usable = complete && slice_known && !all_kept && !bounded_by_slice && !handoff.empty() &&
                        plain_overlapping * 2 <= kHandoffRepeats;
    e.summary.set("grace_crossing_s", usable ? Json(crossing) : Json());
  });
}

}  // namespace

void run_timeslice_suite(RunContext& context) {
  const Deadline deadline = context.suite_deadline(kTimesliceBudget_s);
  unsigned long long handoff_threshold_ns = static_cast<unsigned long long>(kMaxPairThreshold_s * 1e9);
  double probe_slice_s = 0;
  Experiment experiment;
  experiment.name = "timeslice.probe";
  experiment.kind = "timeslice";
  run_experiment(context, std::move(experiment), [&](Experiment& e) {
    const unsigned blocks = context.device.sm_count;
    DeviceBuffer<TimerResolution> resolution(1);
    HWCAL_CUDA(launch_timer_resolution(static_cast<unsigned long long>(kTimerWindow_s * 1e9), resolution.get(),
                                       nullptr));
    const TimerResolution timer = resolution.download(1)[0];
    if (timer.capped != 0) progress("timeslice.probe: warning: the timer-tick window stopped at the iteration cap");
    const double tick_s = timer.changes == 0 ? 0.0
                                             : static_cast<double>(timer.last_change_ns - timer.first_ns) * 1e-9 /
                                                   static_cast<double>(timer.changes);
    ProbeRunner runner(blocks, kGapCapacity);
    const ProbeRun calibration = runner.run(kLoopCalibration_s, ~0ull >> 1);
    warn_if_capped(calibration, "loop-period probe");
    std::vector<double> reads;
    for (const unsigned long long r : calibration.block_reads) reads.push_back(static_cast<double>(r));
    const double loop_period_s = kLoopCalibration_s / median_of(reads);
    const double threshold_s = std::max({5 * loop_period_s, 3 * tick_s, kMinThreshold_s});
    const auto threshold_ns = static_cast<unsigned long long>(threshold_s * 1e9);
    e.params.set("blocks", blocks);
    e.params.set("threads_per_block", 1);
    e.params.set("timer_tick_s", tick_s);
    e.params.set("timer_min_step_s", static_cast<double>(timer.min_delta_ns) * 1e-9);
    e.params.set("timer_window_capped", timer.capped != 0);
    e.params.set("loop_period_s", loop_period_s);
    e.params.set("loop_period_capped_blocks", capped_blocks(calibration));
    e.params.set("threshold_s", static_cast<double>(threshold_ns) * 1e-9);
    e.params.set("solo_duration_s", kSoloDuration_s);
    e.params.set("pair_duration_s", kPairDuration_s);
    e.params.set("pair_repeats", kPairRepeats);
    e.params.set("gap_capacity", kGapCapacity);
    e.params.set("time_origin", "earliest block start of the run (solo) or of the pair, in %globaltimer");

    const ProbeRun solo = runner.run(kSoloDuration_s, threshold_ns);
    warn_if_capped(solo, "solo probe");
    const unsigned long long solo_origin = *std::min_element(solo.block_start_ns.begin(), solo.block_start_ns.end());
    const std::vector<double> solo_gaps = lengths_of(timeline_of(solo, solo_origin).gaps);
    e.repeats.push(run_json("solo", 0, 0, solo, solo_origin, solo_gaps));
    Json solo_summary = Json::object();
    solo_summary.set("block0_gap_count", solo_gaps.size());
    solo_summary.set("block0_gap_s", summary_json(solo_gaps));
    solo_summary.set("gap_count_all_blocks", solo.gap_count);
    e.summary.set("solo", solo_summary);
    // The pair's threshold sits above every stall the solo run saw (all blocks), so stalls are not recorded as gaps.
    std::vector<double> solo_gaps_all;
    for (const TimesliceGap& gap : solo.gaps) {
      solo_gaps_all.push_back(static_cast<double>(gap.to_ns - gap.from_ns) * 1e-9);
    }
    const double solo_max_gap_s =
        solo_gaps_all.empty() ? 0.0 : *std::max_element(solo_gaps_all.begin(), solo_gaps_all.end());
    const auto pair_threshold_ns = static_cast<unsigned long long>(
        std::llround(pair_threshold_s(static_cast<double>(threshold_ns) * 1e-9, solo_gaps_all) * 1e9));
    e.params.set("solo_max_gap_s", solo_max_gap_s);
    e.params.set("pair_threshold_s", static_cast<double>(pair_threshold_ns) * 1e-9);

    if (context.device.compute_mode != cudaComputeModeDefault) {
      e.skipped = "compute mode is not Default: two processes cannot share the GPU";
      return;
    }
    if (deadline.remaining_s() < kPairDuration_s * kPairRepeats + 10) {
      e.truncated = true;
      return;
    }
    const TemporaryDirectory directory("vgpusim-hwcal-probe");
    std::vector<std::unique_ptr<ChildProcess>> children;
    Json clients_mps = Json::array();
    for (const bool mps : start_probe_children(context, blocks, kPairDuration_s, pair_threshold_ns,
                                               directory.path + "/process", children))
      clients_mps.push(mps);
    e.params.set("pair_processes_are_mps_clients", clients_mps);
    std::array<std::vector<double>, 2> slices;
    std::vector<double> gaps, stalls, idle_gaps, switches, idle, both_active, windows;
    Json fractions = Json::array();
    for (unsigned repeat = 0; repeat < kPairRepeats; ++repeat) {
      if (deadline.remaining_s() < kPairDuration_s + 5) {
        e.truncated = true;
        break;
      }
      const std::int64_t start_ns = monotonic_ns() + 300'000'000;  // both children sleep until then
      for (auto& child : children) child->send_line("run " + std::to_string(start_ns));
      std::array<ProbeRun, 2> runs;
      for (unsigned p = 0; p < 2; ++p) {
        runs[p] = read_run(parse_reply(children[p]->read_reply(kPairDuration_s + kChildAnswer_s), 1).paths[0]);
        warn_if_capped(runs[p],
                       "pair probe (repeat " + std::to_string(repeat) + ", process " + std::to_string(p) + ")");
      }
      const unsigned long long origin =
          std::min(*std::min_element(runs[0].block_start_ns.begin(), runs[0].block_start_ns.end()),
                   *std::min_element(runs[1].block_start_ns.begin(), runs[1].block_start_ns.end()));
      const std::array<ProbeTimeline, 2> timelines{timeline_of(runs[0], origin), timeline_of(runs[1], origin)};
      const PairSlices analysis = analyze_pair(timelines[0], timelines[1]);
      for (unsigned p = 0; p < 2; ++p) {
        e.repeats.push(run_json("pair", repeat, p, runs[p], origin, lengths_of(timelines[p].gaps)));
        slices[p].insert(slices[p].end(), analysis.slice_s[p].begin(), analysis.slice_s[p].end());
        gaps.insert(gaps.end(), analysis.gap_s[p].begin(), analysis.gap_s[p].end());
        stalls.insert(stalls.end(), analysis.stall_s[p].begin(), analysis.stall_s[p].end());
        idle_gaps.insert(idle_gaps.end(), analysis.idle_gap_s[p].begin(), analysis.idle_gap_s[p].end());
      }
      switches.insert(switches.end(), analysis.switch_s.begin(), analysis.switch_s.end());
      idle.insert(idle.end(), analysis.idle_s.begin(), analysis.idle_s.end());
      both_active.push_back(analysis.both_active_s);
      windows.push_back(analysis.window.length());
      fractions.push(Json::array_of(analysis.active_fraction));
    }
    for (auto& child : children) child->finish(5);
    std::vector<double> all_slices = slices[0];
    all_slices.insert(all_slices.end(), slices[1].begin(), slices[1].end());
    Json pair = Json::object();
    pair.set("slice_s", summary_json(all_slices));
    Json by_process = Json::array();
    by_process.push(summary_json(slices[0]));
    by_process.push(summary_json(slices[1]));
    pair.set("slice_s_by_process", by_process);
    pair.set("gap_s", summary_json(gaps));
    pair.set("switch_s", summary_json(switches));
    pair.set("stall_count", stalls.size());
    pair.set("stall_s", summary_json(stalls));
    pair.set("idle_gap_count", idle_gaps.size());
    pair.set("idle_gap_s", summary_json(idle_gaps));
    pair.set("idle_s", summary_json(idle));
    pair.set("window_s", Json::array_of(windows));
    pair.set("both_active_s", Json::array_of(both_active));
    pair.set("active_fraction", fractions);
    e.summary.set("pair", pair);
    handoff_threshold_ns = pair_threshold_ns;
    if (!all_slices.empty()) probe_slice_s = median_of(all_slices);
  });
  run_handoff(context, deadline, handoff_threshold_ns, probe_slice_s);
}

}  // namespace vgpusim::hwcal
