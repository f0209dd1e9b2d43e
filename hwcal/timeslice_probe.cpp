// The time-slice probes' process machinery (timeslice_probe.hpp) and the probe child's command loop.
#include "hwcal/timeslice_probe.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "hwcal/suites.hpp"

namespace vgpusim::hwcal {
namespace {

constexpr unsigned kSecondProbeCapacity = 1u << 12;  // records of `run2`'s second (short) probe
constexpr double kSpinLead_s = 1e-3;  // a child sleeps until this long before its start, then spins
constexpr double kSettle_s = 6e-3;    // a child reads its records back no sooner than this after its start

std::string argument_value(const std::vector<std::string>& arguments, const std::string& name) {
  for (std::size_t i = 0; i + 1 < arguments.size(); ++i) {
    if (arguments[i] == name) return arguments[i + 1];
  }
  throw HwcalError("child: missing " + name);
}

// The host program of `paced`: from start_ns, `launches` fma_chain kernels of `iterations`, the host spinning
// gap_ns after each launch call returns (a framework's dispatch), waiting for the GPU every sync_every launches
// (0: only after the last).
struct PacedTimes {
  std::int64_t launched_ns = 0, synced_ns = 0;
};
PacedTimes run_paced_launches(std::int64_t start_ns, float* sink, const LaunchShape& shape, unsigned iterations,
                              unsigned launches, long long gap_ns, unsigned sync_every) {
  sleep_until_monotonic_ns(start_ns - static_cast<std::int64_t>(kSpinLead_s * 1e9));
  while (monotonic_ns() < start_ns) {
  }
  PacedTimes out;
  out.launched_ns = monotonic_ns();
  for (unsigned i = 0; i < launches; ++i) {
    HWCAL_CUDA(launch_fma_chain(sink, iterations, shape, nullptr));
    if (sync_every > 0 && (i + 1) % sync_every == 0) HWCAL_CUDA(cudaDeviceSynchronize());
    const std::int64_t until = monotonic_ns() + gap_ns;
    while (monotonic_ns() < until) {
    }  // spin: a sleep would add the scheduler's wake-up latency
  }
  HWCAL_CUDA(cudaDeviceSynchronize());
  out.synced_ns = monotonic_ns();
  return out;
}

}  // namespace

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

double relative_s(unsigned long long ns, unsigned long long origin_ns) {
  return static_cast<double>(static_cast<long long>(ns - origin_ns)) * 1e-9;
}

unsigned long long first_start_ns(const ProbeRun& run) {
  return *std::min_element(run.block_start_ns.begin(), run.block_start_ns.end());
}
unsigned long long last_end_ns(const ProbeRun& run) {
  return *std::max_element(run.block_end_ns.begin(), run.block_end_ns.end());
}

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

bool two_processes_can_run(const RunContext& context, const Deadline& deadline, double min_budget_s, Experiment& e) {
  if (context.device.compute_mode != cudaComputeModeDefault) {
    e.skipped = "compute mode is not Default: two processes cannot share the GPU";
    return false;
  }
  if (deadline.remaining_s() < min_budget_s) {
    e.truncated = true;
    return false;
  }
  return true;
}

TemporaryDirectory::TemporaryDirectory(const std::string& prefix) {
  std::string name = "/tmp/" + prefix + "-XXXXXX";
  HWCAL_REQUIRE(mkdtemp(name.data()) != nullptr, "mkdtemp failed");
  path = name;
}

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

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

int probe_child_main(const std::vector<std::string>& arguments) {
  try {
    const auto blocks = static_cast<unsigned>(std::stoul(argument_value(arguments, "--blocks")));
    const double duration_s = std::stod(argument_value(arguments, "--duration-s"));
    const unsigned long long threshold_ns = std::stoull(argument_value(arguments, "--threshold-ns"));
    const std::string out_path = argument_value(arguments, "--out");
    HWCAL_CUDA(cudaSetDevice(0));
    HWCAL_CUDA(cudaFree(nullptr));
    ProbeRunner runner(blocks, kGapCapacity);
    ProbeRunner again(blocks, kSecondProbeCapacity);  // the second kernel of `run2`
    runner.run(1e-3, ~0ull >> 1);  // warm-up: module load
    again.run(1e-3, ~0ull >> 1);
    // `paced`'s fixed-work kernels: one block of kPacedThreads per SM.
    DeviceBuffer<float> sink(1);
    LaunchShape paced_shape;
    paced_shape.blocks = blocks;
    paced_shape.threads_per_block = kPacedThreads;
    HWCAL_CUDA(launch_fma_chain(sink.get(), kFmaUnroll, paced_shape, nullptr));
    HWCAL_CUDA(cudaDeviceSynchronize());
    int mps = 0;
    HWCAL_CUDA(cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, 0));
    write_parent_line("ready " + std::to_string(getpid()) + " " + std::to_string(mps));
    unsigned run_index = 0;
    // "paced START_NS ITERATIONS LAUNCHES GAP_NS SYNC_EVERY": run_paced_launches; replies "done LAUNCH_NS SYNCED_NS".
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
      if (verb == "paced") {
        unsigned iterations = 0, launches = 0, sync_every = 0;
        long long gap_ns = 0;
        command >> iterations >> launches >> gap_ns >> sync_every;
        HWCAL_REQUIRE(!command.fail() && launches > 0, "probe child: bad command: " + *line);
        HWCAL_CUDA(cudaDeviceSynchronize());
        const PacedTimes times = run_paced_launches(start_ns, sink.get(), paced_shape, iterations, launches, gap_ns,
                                                    sync_every);
        write_parent_line("done " + std::to_string(times.launched_ns) + " " + std::to_string(times.synced_ns));
        continue;
      }
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

}  // namespace vgpusim::hwcal
