// The co-run emulator's common loop (solo a, solo b, together; repeated) and the suite: sizing the workloads,
// full-GPU solo references, then the forms: two streams, two processes, green contexts, MPS.
#include "hwcal/corun.hpp"

#include <algorithm>

#include "hwcal/stats.hpp"
#include "hwcal/suites.hpp"

namespace vgpusim::hwcal {
namespace {

constexpr unsigned kSoloFullRepeats = 5;
constexpr std::size_t kMaxArrayBytes = std::size_t{1} << 30;  // 1 GiB per array: 16x an H200's L2
constexpr double kFirstRepeatGuess_s = 3;                      // budget check before a pair's first repeat

Json timing_json(const SlotTiming& solo_a, const SlotTiming& solo_b, const std::array<SlotTiming, 2>& together) {
  Json out = Json::object();
  out["solo_a_s"] = solo_a.device_s;
  out["solo_b_s"] = solo_b.device_s;
  out["corun_a_s"] = together[0].device_s;
  out["corun_b_s"] = together[1].device_s;
  const auto first = std::min(together[0].device_start_ns, together[1].device_start_ns);
  const auto last = std::max(together[0].device_end_ns, together[1].device_end_ns);
  out["makespan_s"] = static_cast<double>(last - first) * 1e-9;
  // b's first block start minus a's, in the co-run: how well the two were started together.
  out["start_offset_s"] = (static_cast<double>(together[1].device_start_ns) -
                             static_cast<double>(together[0].device_start_ns)) * 1e-9;
  out["solo_a_host_s"] = solo_a.host_s;
  out["solo_b_host_s"] = solo_b.host_s;
  out["corun_a_host_s"] = together[0].host_s;
  out["corun_b_host_s"] = together[1].host_s;
  const auto host_first = std::min(together[0].host_start_ns, together[1].host_start_ns);
  const auto host_last = std::max(together[0].host_end_ns, together[1].host_end_ns);
  out["makespan_host_s"] = static_cast<double>(host_last - host_first) * 1e-9;
  return out;
}

std::vector<double> column(const Json& repeats, const char* key) {
  std::vector<double> out;
  for (const Json& repeat : repeats) {
    const Json* value = member(repeat, key);
    if (value != nullptr && number_of(*value)) out.push_back(*number_of(*value));
  }
  return out;
}

double ratio_of_medians(const std::vector<double>& numerator, const std::vector<double>& denominator) {
  return median_of(numerator) / median_of(denominator);
}

}  // namespace

SlotTiming StreamPairExecutor::run_alone(int slot, const WorkloadSpec& spec) {
  return hwcal::run_alone(spec, *slots_[slot], streams_[slot], kCorunRunTimeout_s);
}

std::array<SlotTiming, 2> StreamPairExecutor::run_together(const WorkloadSpec& a, const WorkloadSpec& b) {
  return hwcal::run_together({&a, &b}, slots_, streams_, kCorunRunTimeout_s);
}

std::vector<WorkloadPair> symmetric_pairs() {
  using enum WorkloadKind;
  return {{compute, compute}, {memory, memory}, {mixed, mixed}, {compute, memory}, {compute, mixed}, {mixed, memory}};
}

std::vector<WorkloadPair> asymmetric_pairs() {
  using enum WorkloadKind;
  std::vector<WorkloadPair> out = symmetric_pairs();
  out.insert(out.end(), {{memory, compute}, {mixed, compute}, {memory, mixed}});
  return out;
}

std::string corun_name(const CorunForm& form, const WorkloadPair& pair) {
  std::string name = "corun." + form.form;
  if (!form.partition_label.empty()) name += "." + form.partition_label;
  return name + "." + workload_name(pair.first) + "+" + workload_name(pair.second);
}

Json whole_gpu_partition(const DeviceInfo& device) {
  Json out = Json::object();
  out["a_sms"] = device.sm_count;  // each side may use every SM
  out["b_sms"] = device.sm_count;
  out["a_active_thread_percentage"] = Json();
  out["b_active_thread_percentage"] = Json();
  return out;
}

void run_corun_form(RunContext& context, const Deadline& deadline, const CorunSetup& setup, const CorunForm& form,
                    PairExecutor& executor) {
  for (const WorkloadPair& pair : form.pairs) {
    Experiment experiment;
    experiment.name = corun_name(form, pair);
    experiment.kind = "corun";
    run_experiment(context, std::move(experiment), [&](Experiment& e) {
      const WorkloadSpec& a = setup.spec(pair.first);
      const WorkloadSpec& b = setup.spec(pair.second);
      e.params["form"] = form.form;
      e.params["partition_label"] = form.partition_label;
      e.params["partition"] = form.partition;
      e.params["kernel_a"] = workload_json(a);
      e.params["kernel_b"] = workload_json(b);
      e.params["repeats_planned"] = form.repeats;
      e.params["timing"] = "device: first block start to last block end (%globaltimer); host: CLOCK_MONOTONIC "
                             "from first launch call to completion seen";
      e.params["notes"] = form.notes;
      double last_repeat_s = kFirstRepeatGuess_s;
      for (unsigned r = 0; r < form.repeats; ++r) {
        if (deadline.remaining_s() < last_repeat_s) {
          e.truncated = true;
          break;
        }
        const std::int64_t start_ns = monotonic_ns();
        const SlotTiming solo_a = executor.run_alone(0, a);
        const SlotTiming solo_b = executor.run_alone(1, b);
        const std::array<SlotTiming, 2> together = executor.run_together(a, b);
        e.repeats.push_back(timing_json(solo_a, solo_b, together));
        last_repeat_s = static_cast<double>(monotonic_ns() - start_ns) * 1e-9;
      }
      if (e.repeats.size() == 0) {  // nothing measured: no summary of nulls for `fit` to trip on
        e.skipped = "time budget used up before the first repeat";
        return;
      }
      for (const char* key : {"solo_a_s", "solo_b_s", "corun_a_s", "corun_b_s", "makespan_s", "start_offset_s",
                              "solo_a_host_s", "solo_b_host_s", "corun_a_host_s", "corun_b_host_s",
                              "makespan_host_s"}) {
        e.summary[key] = summary_json(column(e.repeats, key));
      }
      const std::vector<double>& full_a = setup.solo_full_s[static_cast<int>(pair.first)];
      const std::vector<double>& full_b = setup.solo_full_s[static_cast<int>(pair.second)];
      e.summary["solo_full_a_s"] = summary_json(full_a);
      e.summary["solo_full_b_s"] = summary_json(full_b);
      e.summary["slowdown_a"] = ratio_of_medians(column(e.repeats, "corun_a_s"), column(e.repeats, "solo_a_s"));
      e.summary["slowdown_b"] = ratio_of_medians(column(e.repeats, "corun_b_s"), column(e.repeats, "solo_b_s"));
      e.summary["slowdown_host_a"] = ratio_of_medians(column(e.repeats, "corun_a_host_s"), column(e.repeats, "solo_a_host_s"));
      e.summary["slowdown_host_b"] = ratio_of_medians(column(e.repeats, "corun_b_host_s"), column(e.repeats, "solo_b_host_s"));
      e.summary["slowdown_vs_full_a"] = ratio_of_medians(column(e.repeats, "corun_a_s"), full_a);
      e.summary["slowdown_vs_full_b"] = ratio_of_medians(column(e.repeats, "corun_b_s"), full_b);
      // > 1: running the pair together beat running both one after the other on the whole GPU.
      e.summary["serial_full_over_makespan"] = (median_of(full_a) + median_of(full_b)) / median_of(column(e.repeats, "makespan_s"));
    });
  }
}

void emit_form_failure(RunContext& context, const CorunForm& form, const std::string& reason, bool is_error) {
  Experiment experiment;
  experiment.name = "corun." + form.form + (form.partition_label.empty() ? "" : "." + form.partition_label);
  experiment.kind = "corun";
  run_experiment(context, std::move(experiment), [&](Experiment& e) {
    e.params["form"] = form.form;
    e.params["partition_label"] = form.partition_label;
    e.params["partition"] = form.partition;
    e.params["notes"] = form.notes;
    if (is_error) {
      e.error = reason;
    } else {
      e.skipped = reason;
    }
  });
}

void run_corun_suite(RunContext& context) {
  const Deadline deadline = context.suite_deadline(kCorunBudget_s);
  const DeviceInfo& device = context.device;
  // Parent: 2 slots x 3 arrays; 2 children: 3 arrays each; keep all of it under ~3/4 of free memory.
  const std::size_t array_bytes = std::min(kMaxArrayBytes, free_device_memory_bytes() / 16);
  WorkloadLimits limits;
  limits.sm_count = device.sm_count;
  limits.memory_elements = array_bytes / sizeof(float) / 4096 * 4096;
  limits.mixed_elements = limits.memory_elements / 2 / 4096 * 4096;
  HWCAL_REQUIRE(array_bytes > 64 * device.l2_bytes / 16, "too little device memory for arrays >> L2");

  CorunSetup setup;
  setup.slot_capacity_elements = limits.memory_elements;
  SlotBuffers slot_a = allocate_slot(limits.memory_elements, 31);
  SlotBuffers slot_b = allocate_slot(limits.memory_elements, 41);
  OwnedStream stream_a, stream_b;
  for (const WorkloadKind kind : kWorkloadKinds) {
    WorkloadSpec& spec = setup.specs[static_cast<int>(kind)];
    spec = calibrate_workload(kind, limits, slot_a, stream_a.get(), kCorunSoloTarget_s);
    for (unsigned r = 0; r < kSoloFullRepeats; ++r) {
      const SlotTiming timing = run_alone(spec, slot_a, stream_a.get(), kCorunRunTimeout_s);
      setup.solo_full_s[static_cast<int>(kind)].push_back(timing.device_s);
      setup.solo_full_host_s[static_cast<int>(kind)].push_back(timing.host_s);
    }
    progress(std::string("corun workload ") + workload_name(kind) + ": " + std::to_string(spec.launches) +
             " launches, " + std::to_string(median_of(setup.solo_full_s[static_cast<int>(kind)]) * 1e3) +
             " ms alone");
  }

  CorunForm streams;
  streams.form = "streams";
  streams.partition = whole_gpu_partition(device);
  streams.notes["streams"] = "two non-blocking streams of one context";
  streams.pairs = symmetric_pairs();
  StreamPairExecutor stream_executor({stream_a.get(), stream_b.get()}, {&slot_a, &slot_b});
  run_corun_form(context, deadline, setup, streams, stream_executor);

  run_process_form(context, deadline, setup);
  run_green_context_forms(context, deadline, setup, {&slot_a, &slot_b});
  run_mps_forms(context, deadline, setup);
}

}  // namespace vgpusim::hwcal
