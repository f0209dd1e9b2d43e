// Co-runs across processes: two children of this program (time-slicing), then the same under a private MPS
// daemon (uncapped, and 50% active threads each). Children start each run at a shared CLOCK_MONOTONIC instant.
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <type_traits>

#include "hwcal/corun.hpp"
#include "hwcal/mps_daemon.hpp"
#include "hwcal/subprocess.hpp"
#include "hwcal/suites.hpp"

namespace vgpusim::hwcal {
namespace {

constexpr double kChildStart_s = 90;              // CUDA start-up, allocation, warm-up
constexpr std::int64_t kStartDelay_ns = 30000000;  // both children get the "run" line well before this
constexpr double kMinFormTime_s = 15;             // below this, a process form is not started

// After one failure every later call fails at once: a hung child must cost one timeout, not one per pair.
class ProcessPairExecutor : public PairExecutor {
 public:
  explicit ProcessPairExecutor(std::array<ChildProcess*, 2> children) : children_(children) {}

  SlotTiming run_alone(int slot, const WorkloadSpec& spec) override {
    return guarded([&] {
      send_run(slot, spec, monotonic_ns() + kStartDelay_ns);
      return read_result(slot);
    });
  }

  std::array<SlotTiming, 2> run_together(const WorkloadSpec& a, const WorkloadSpec& b) override {
    return guarded([&] {
      const std::int64_t start_ns = monotonic_ns() + kStartDelay_ns;
      send_run(0, a, start_ns);
      send_run(1, b, start_ns);
      const SlotTiming first = read_result(0);
      return std::array<SlotTiming, 2>{first, read_result(1)};
    });
  }

 private:
  template <typename Body>
  std::invoke_result_t<Body> guarded(Body body) {
    if (!first_failure_.empty()) throw HwcalError("an earlier run of this form failed: " + first_failure_);
    try {
      return body();
    } catch (const std::exception& failure) {
      first_failure_ = failure.what();
      throw;
    }
  }

  void send_run(int slot, const WorkloadSpec& spec, std::int64_t start_ns) {
    children_[slot]->send_line("run " + encode_workload(spec) + " " + std::to_string(start_ns));
  }

  SlotTiming read_result(int slot) {
    const std::string line = children_[slot]->read_reply(kCorunRunTimeout_s);
    std::istringstream fields(line);
    std::string verb;
    SlotTiming out;
    fields >> verb >> out.device_start_ns >> out.device_end_ns >> out.host_start_ns >> out.host_end_ns;
    HWCAL_REQUIRE(verb == "result" && !fields.fail(), "co-run child: " + line);
    out.device_s = static_cast<double>(out.device_end_ns - out.device_start_ns) * 1e-9;
    out.host_s = static_cast<double>(out.host_end_ns - out.host_start_ns) * 1e-9;
    return out;
  }

  std::array<ChildProcess*, 2> children_;
  std::string first_failure_;
};

}  // namespace

std::vector<std::string> end_children(std::array<std::unique_ptr<ChildProcess>, 2>& children) {
  // Best effort: a child that already exited (it failed a run, which that pair recorded) has closed its input,
  // and a throw here would drop the forms still to come (green contexts, MPS). Such a child is only noted.
  std::vector<std::string> notes;
  for (auto& child : children) {
    if (!child) continue;
    const bool told = child->try_send_line("quit");
    const std::string status = child->finish(10);
    if (!told) {
      notes.push_back("child " + std::to_string(child->pid()) + " had exited before quit (" + status + ")");
      progress("co-run " + notes.back());
    }
  }
  return notes;
}

namespace {

struct ProcessFormPlan {
  CorunForm form;
  std::array<std::vector<std::string>, 2> environment;  // extra entries per child
};

// Spawns two children, checks what they are (MPS client or not), runs the pairs, ends them. Returns whether
// the children started as expected. Under MPS a start-up failure says the machine cannot run MPS (skipped);
// without MPS it is an error.
bool run_with_children(RunContext& context, const Deadline& deadline, const CorunSetup& setup,
                       ProcessFormPlan plan, bool expect_mps) {
  const bool startup_failure_is_error = !expect_mps;
  std::string warm;
  for (const WorkloadKind kind : kWorkloadKinds) {
    if (!warm.empty()) warm += ',';
    warm += encode_workload(setup.spec(kind));
  }
  const std::vector<std::string> arguments{"__child", "corun", "--capacity-elements",
                                           std::to_string(setup.slot_capacity_elements), "--warm", warm};
  std::array<std::unique_ptr<ChildProcess>, 2> children;
  Json clients_mps = Json::array();
  bool all_as_expected = true;
  try {
    for (int k = 0; k < 2; ++k) {
      children[k] = std::make_unique<ChildProcess>(context.executable, arguments, plan.environment[k]);
    }
    // One start-up allowance for both (a child stuck connecting to MPS must not cost it twice).
    const double allowance_s = std::clamp(deadline.remaining_s(), kMinFormTime_s, kChildStart_s);
    const std::int64_t ready_by_ns = monotonic_ns() + static_cast<std::int64_t>(allowance_s * 1e9);
    for (int k = 0; k < 2; ++k) {
      const double left_s = std::max(0.1, static_cast<double>(ready_by_ns - monotonic_ns()) * 1e-9);
      const std::string ready = children[k]->read_reply(left_s);
      HWCAL_REQUIRE(ready.rfind("ready ", 0) == 0, "co-run child: " + ready);
      const bool is_mps = ready.back() == '1';
      clients_mps.push_back(is_mps);
      all_as_expected = all_as_expected && is_mps == expect_mps;
    }
  } catch (const std::exception& failure) {
    emit_form_failure(context, plan.form, std::string("children did not start: ") + failure.what(),
                      startup_failure_is_error);
    return false;
  }
  plan.form.notes["children_are_mps_clients"] = clients_mps;
  if (!all_as_expected) {
    emit_form_failure(context, plan.form,
                      expect_mps ? "the children did not connect to the MPS daemon (CUDA falls back to no MPS)"
                                 : "the children are MPS clients of an MPS daemon already running here",
                      false);
    return false;
  }
  ProcessPairExecutor executor({children[0].get(), children[1].get()});
  run_corun_form(context, deadline, setup, plan.form, executor);
  end_children(children);
  return true;
}

// With a cap, how many SMs a client gets is the driver's business: sms are null, the percentage says it.
Json capped_partition(const DeviceInfo& device, const Json& percentage) {
  Json out = whole_gpu_partition(device);
  if (!percentage.is_null()) {
    out["a_sms"] = Json();
    out["b_sms"] = Json();
  }
  out["a_active_thread_percentage"] = percentage;
  out["b_active_thread_percentage"] = percentage;
  return out;
}

}  // namespace

void run_process_form(RunContext& context, const Deadline& deadline, const CorunSetup& setup) {
  const DeviceInfo& device = context.device;
  ProcessFormPlan processes;
  processes.form.form = "processes";
  processes.form.partition = whole_gpu_partition(device);
  processes.form.pairs = symmetric_pairs();
  processes.form.notes["sharing"] = device.mps_enabled
                                          ? "two processes under the MPS daemon that already serves this machine"
                                          : "two processes, one context each: time-sliced by the driver";
  const bool exclusive = device.compute_mode != 0;  // cudaComputeModeDefault
  if (exclusive) {
    emit_form_failure(context, processes.form, "compute mode is not Default: only one process may use the GPU",
                      false);
  } else if (deadline.remaining_s() < kMinFormTime_s) {
    emit_form_failure(context, processes.form, "time budget used up before this form", false);
  } else {
    run_with_children(context, deadline, setup, processes, device.mps_enabled);
  }
}

void run_mps_forms(RunContext& context, const Deadline& deadline, const CorunSetup& setup) {
  const DeviceInfo& device = context.device;
  const bool exclusive = device.compute_mode != 0;  // cudaComputeModeDefault
  const std::optional<std::string> control = find_on_path("nvidia-cuda-mps-control");
  const std::pair<const char*, Json> variants[] = {{"uncapped", Json()}, {"50+50", Json(50)}};
  bool mps_works = true;  // after a failed start, the capped variant would only fail (or wait) again
  for (const auto& [label, percentage] : variants) {
    ProcessFormPlan mps;
    mps.form.form = "mps";
    mps.form.partition_label = label;
    mps.form.partition = capped_partition(device, percentage);
    mps.form.pairs = symmetric_pairs();
    if (!control) {
      emit_form_failure(context, mps.form, "nvidia-cuda-mps-control is not on PATH", false);
      continue;
    }
    if (exclusive || device.mps_enabled) {
      emit_form_failure(context, mps.form,
                        exclusive ? "compute mode is not Default" : "an MPS daemon already serves this machine",
                        false);
      continue;
    }
    if (deadline.remaining_s() < kMinFormTime_s) {
      emit_form_failure(context, mps.form, "time budget used up before this form", false);
      continue;
    }
    if (!mps_works) {
      emit_form_failure(context, mps.form, "MPS did not work in the uncapped form", false);
      continue;
    }
    // Experiments are held back until the daemon is stopped, so each records how the stop went.
    std::vector<Experiment> held;
    RunContext holding = context;
    holding.emit = [&held](Experiment&& experiment) { held.push_back(std::move(experiment)); };
    Json stop_report;
    std::unique_ptr<MpsDaemon> daemon;
    try {
      daemon = std::make_unique<MpsDaemon>(*control);
    } catch (const std::exception& failure) {
      emit_form_failure(context, mps.form, std::string("the MPS daemon did not start: ") + failure.what(), false);
      mps_works = false;
      continue;
    }
    try {
      for (int k = 0; k < 2; ++k) {
        mps.environment[k] = daemon->client_environment();
        if (!percentage.is_null()) mps.environment[k].push_back("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50");
      }
      mps.form.notes["control"] = *control;
      mps_works = run_with_children(holding, deadline, setup, mps, true);
    } catch (const std::exception& failure) {
      emit_form_failure(holding, mps.form, failure.what(), true);
    }
    try {
      stop_report = daemon->stop();  // children are gone by now: run_with_children ended them
    } catch (const std::exception& failure) {
      stop_report["error"] = failure.what();
    }
    for (Experiment& experiment : held) {
      experiment.params["mps_daemon_stop"] = stop_report;
      context.emit(std::move(experiment));
    }
  }
}

int corun_child_main(const std::vector<std::string>& arguments) {
  try {
    std::size_t capacity = 0;
    std::vector<WorkloadSpec> warm;
    for (std::size_t i = 0; i + 1 < arguments.size(); ++i) {
      if (arguments[i] == "--capacity-elements") capacity = std::stoull(arguments[i + 1]);
      if (arguments[i] == "--warm") {
        std::stringstream list(arguments[i + 1]);
        std::string item;
        while (std::getline(list, item, ',')) warm.push_back(decode_workload(item));
      }
    }
    HWCAL_REQUIRE(capacity > 0, "co-run child: missing --capacity-elements");
    HWCAL_CUDA(cudaSetDevice(0));
    HWCAL_CUDA(cudaFree(nullptr));
    SlotBuffers slot = allocate_slot(capacity, static_cast<unsigned>(getpid()));
    OwnedStream stream;
    for (WorkloadSpec spec : warm) {
      spec.launches = 1;  // module load and first-touch costs, not measured
      run_alone(spec, slot, stream.get(), kCorunRunTimeout_s);
    }
    int mps = 0;
    HWCAL_CUDA(cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, 0));
    write_parent_line("ready " + std::to_string(getpid()) + " " + std::to_string(mps));
    while (const auto line = read_parent_line()) {
      std::istringstream fields(*line);
      std::string verb, encoded;
      long long start_ns = 0;
      fields >> verb >> encoded >> start_ns;
      if (verb != "run") break;
      const WorkloadSpec spec = decode_workload(encoded);
      sleep_until_monotonic_ns(start_ns);
      const SlotTiming timing = run_alone(spec, slot, stream.get(), kCorunRunTimeout_s);
      write_parent_line("result " + std::to_string(timing.device_start_ns) + " " +
                        std::to_string(timing.device_end_ns) + " " + std::to_string(timing.host_start_ns) + " " +
                        std::to_string(timing.host_end_ns));
    }
    return 0;
  } catch (const std::exception& failure) {
    write_parent_line(std::string("error ") + failure.what());
    return 1;
  }
}

}  // namespace vgpusim::hwcal
