// The co-run emulator: pairs of workloads measured alone and together under one sharing form
// (two streams, two processes, disjoint green contexts, MPS), giving slowdowns = co-run time / solo time.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hwcal/experiment.hpp"
#include "hwcal/json.hpp"
#include "hwcal/subprocess.hpp"
#include "hwcal/workloads.hpp"

namespace vgpusim::hwcal {

inline constexpr double kCorunSoloTarget_s = 0.06;  // each workload alone on the whole GPU
inline constexpr double kCorunRunTimeout_s = 60;    // one run of a pair, far above any expected time

using WorkloadPair = std::pair<WorkloadKind, WorkloadKind>;

struct CorunSetup {
  std::array<WorkloadSpec, 3> specs;                 // indexed by WorkloadKind
  std::array<std::vector<double>, 3> solo_full_s;    // device spans alone on the whole GPU, stream 0
  std::array<std::vector<double>, 3> solo_full_host_s;
  std::size_t slot_capacity_elements = 0;
  const WorkloadSpec& spec(WorkloadKind kind) const { return specs[static_cast<int>(kind)]; }
};

// Runs workloads in slot 0 or 1 of one sharing form.
class PairExecutor {
 public:
  virtual ~PairExecutor() = default;
  virtual SlotTiming run_alone(int slot, const WorkloadSpec& spec) = 0;
  virtual std::array<SlotTiming, 2> run_together(const WorkloadSpec& a, const WorkloadSpec& b) = 0;
};

// Two streams (of one context, or of two green contexts) of this process.
class StreamPairExecutor : public PairExecutor {
 public:
  StreamPairExecutor(std::array<cudaStream_t, 2> streams, std::array<SlotBuffers*, 2> slots)
      : streams_(streams), slots_(slots) {}
  SlotTiming run_alone(int slot, const WorkloadSpec& spec) override;
  std::array<SlotTiming, 2> run_together(const WorkloadSpec& a, const WorkloadSpec& b) override;

 private:
  std::array<cudaStream_t, 2> streams_;
  std::array<SlotBuffers*, 2> slots_;
};

struct CorunForm {
  std::string form;             // streams | processes | green_ctx | mps
  std::string partition_label;  // "" (whole GPU), "16+116", "uncapped", "50+50", ...
  Json partition = Json::object();
  Json notes = Json::object();  // form facts (observed SMs, MPS client status, ...), copied into params
  std::vector<WorkloadPair> pairs;
  unsigned repeats = 5;
};

std::vector<WorkloadPair> symmetric_pairs();   // cc, mm, xx, cm, cx, xm
std::vector<WorkloadPair> asymmetric_pairs();  // the symmetric ones plus mc, xc, mx (slot a is the first)
std::string corun_name(const CorunForm& form, const WorkloadPair& pair);
Json whole_gpu_partition(const DeviceInfo& device);

// One experiment per pair: repeats of (a alone, b alone, both together).
void run_corun_form(RunContext& context, const Deadline& deadline, const CorunSetup& setup, const CorunForm& form,
                    PairExecutor& executor);
// An experiment standing for a form that could not run at all (skipped or error).
void emit_form_failure(RunContext& context, const CorunForm& form, const std::string& reason, bool is_error);

void run_green_context_forms(RunContext& context, const Deadline& deadline, const CorunSetup& setup,
                             std::array<SlotBuffers*, 2> slots);
void run_process_form(RunContext& context, const Deadline& deadline, const CorunSetup& setup);
// Tells both children to quit and reaps them, never throwing; returns a note for each child that had already
// exited (its "quit" could not be sent).
std::vector<std::string> end_children(std::array<std::unique_ptr<ChildProcess>, 2>& children);
// Only when nvidia-cuda-mps-control is on PATH: a private daemon, uncapped then 50% active threads per client.
void run_mps_forms(RunContext& context, const Deadline& deadline, const CorunSetup& setup);

}  // namespace vgpusim::hwcal
