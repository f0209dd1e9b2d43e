// Green-context co-runs: the SMs split into two disjoint groups (16+rest, 64+64, 32+96) through the driver API;
// each workload runs in its group's stream. Only SMs are split: L2 and DRAM bandwidth stay shared (MPS-like).
#include <algorithm>
#include <iterator>
#include <memory>
#include <numeric>
#include <set>

#include "hwcal/corun.hpp"
#include "hwcal/device_kernels.hpp"
#include "hwcal/driver_api.hpp"

namespace vgpusim::hwcal {
namespace {

constexpr unsigned kRest = 0;  // "the remaining SMs" as a partition size
constexpr unsigned kSmidProbeBlocksPerSm = 4;
constexpr unsigned long long kSmidProbeSpin_ns = 20000;

struct SplitRequest {
  unsigned a_sms;
  unsigned b_sms;  // kRest: all SMs not in a
  unsigned repeats;
};

std::string split_label(const SplitRequest& split, unsigned sm_count) {
  const unsigned b = split.b_sms == kRest ? sm_count - split.a_sms : split.b_sms;
  return std::to_string(split.a_sms) + "+" + std::to_string(b);
}

// Two green contexts on disjoint SM groups, each with a non-blocking stream; destroyed in reverse order.
class GreenContextPair {
 public:
  GreenContextPair(int ordinal, const SplitRequest& split, Json& notes) : api_(driver_api()) {
    try {
      build(ordinal, split, notes);
    } catch (...) {
      release();  // the destructor does not run for a half-built object
      throw;
    }
  }

  ~GreenContextPair() { release(); }
  GreenContextPair(const GreenContextPair&) = delete;
  GreenContextPair& operator=(const GreenContextPair&) = delete;

  cudaStream_t stream(int k) const { return streams_[k]; }  // CUstream and cudaStream_t are one type
  unsigned sms(int k) const { return sms_[k]; }

 private:
  void build(int ordinal, const SplitRequest& split, Json& notes) {
    CUdevice device = 0;
    HWCAL_CU(api_.device_get(&device, ordinal));
    CUdevResource all{};
    HWCAL_CU(api_.device_get_dev_resource(device, &all, CU_DEV_RESOURCE_TYPE_SM));
    notes["device_sms"] = all.sm.smCount;
    notes["min_partition_sms"] = all.sm.minSmPartitionSize;
    notes["partition_alignment_sms"] = all.sm.smCoscheduledAlignment;
    // Groups of gcd(a, b) SMs; a takes the first a/unit groups, b the next b/unit (or all the rest).
    const unsigned unit = split.b_sms == kRest ? split.a_sms : std::gcd(split.a_sms, split.b_sms);
    unsigned group_count = 0;
    HWCAL_CU(api_.dev_sm_resource_split_by_count(nullptr, &group_count, &all, nullptr, 0, unit));
    HWCAL_REQUIRE(group_count > 0, "the SMs cannot be split into groups of " + std::to_string(unit));
    std::vector<CUdevResource> groups(group_count);
    CUdevResource remaining{};
    HWCAL_CU(api_.dev_sm_resource_split_by_count(groups.data(), &group_count, &all, &remaining, 0, unit));
    const unsigned group_sms = groups[0].sm.smCount;  // the driver may round the unit up to its alignment
    notes["group_sms"] = group_sms;
    notes["groups"] = group_count;
    HWCAL_REQUIRE(group_sms > 0, "the driver returned empty SM groups");
    const unsigned a_groups = std::max(1u, split.a_sms / group_sms);
    unsigned b_groups = split.b_sms == kRest ? group_count - std::min(a_groups, group_count)
                                             : std::max(1u, split.b_sms / group_sms);
    bool b_takes_rest = split.b_sms == kRest;
    if (a_groups + b_groups > group_count) {  // fewer groups than asked: b gets whatever a leaves
      b_groups = group_count - std::min(a_groups, group_count);
      b_takes_rest = true;
      notes["b_partition_adjusted"] = true;
    }
    HWCAL_REQUIRE(b_groups > 0, "only " + std::to_string(group_count) + " groups of " + std::to_string(group_sms) +
                                    " SMs: nothing left for the second partition");
    std::vector<CUdevResource> a_resources(groups.begin(), groups.begin() + a_groups);
    std::vector<CUdevResource> b_resources(groups.begin() + a_groups, groups.begin() + a_groups + b_groups);
    if (b_takes_rest && remaining.type == CU_DEV_RESOURCE_TYPE_SM && remaining.sm.smCount > 0) {
      b_resources.push_back(remaining);
    }
    create(0, device, a_resources);
    create(1, device, b_resources);
  }

  void release() {
    for (int k = 1; k >= 0; --k) {
      if (streams_[k] != nullptr) {
        static_cast<void>(cudaStreamSynchronize(streams_[k]));
        static_cast<void>(api_.stream_destroy(streams_[k]));
        streams_[k] = nullptr;
      }
      if (contexts_[k] != nullptr) static_cast<void>(api_.green_ctx_destroy(contexts_[k]));
      contexts_[k] = nullptr;
    }
  }

  void create(int k, CUdevice device, std::vector<CUdevResource>& resources) {
    CUdevResourceDesc description = nullptr;
    HWCAL_CU(api_.dev_resource_generate_desc(&description, resources.data(),
                                             static_cast<unsigned>(resources.size())));
    HWCAL_CU(api_.green_ctx_create(&contexts_[k], description, device, CU_GREEN_CTX_DEFAULT_STREAM));
    HWCAL_CU(api_.green_ctx_stream_create(&streams_[k], contexts_[k], CU_STREAM_NON_BLOCKING, 0));
    CUdevResource granted{};
    HWCAL_CU(api_.green_ctx_get_dev_resource(contexts_[k], &granted, CU_DEV_RESOURCE_TYPE_SM));
    sms_[k] = granted.sm.smCount;
  }

  const DriverApi& api_;
  std::array<CUgreenCtx, 2> contexts_{nullptr, nullptr};
  std::array<CUstream, 2> streams_{nullptr, nullptr};
  std::array<unsigned, 2> sms_{0, 0};
};

// The SMs a kernel launched in this stream actually ran on (many short blocks, so all allowed SMs get some).
std::set<unsigned> observed_sms(cudaStream_t stream, unsigned sm_count) {
  const unsigned blocks = sm_count * kSmidProbeBlocksPerSm;
  DeviceBuffer<unsigned> smids(blocks);
  HWCAL_CUDA(launch_smid_probe(blocks, kSmidProbeSpin_ns, smids.get(), stream));
  HWCAL_CUDA(cudaStreamSynchronize(stream));
  const std::vector<unsigned> host = smids.download(blocks);
  return std::set<unsigned>(host.begin(), host.end());
}

}  // namespace

void run_green_context_forms(RunContext& context, const Deadline& deadline, const CorunSetup& setup,
                             std::array<SlotBuffers*, 2> slots) {
  const unsigned sm_count = context.device.sm_count;
  const std::vector<WorkloadPair> symmetric = symmetric_pairs();
  const std::vector<WorkloadPair> asymmetric = asymmetric_pairs();
  const SplitRequest splits[] = {{64, 64, 5}, {16, kRest, 3}, {32, 96, 3}};
  for (const SplitRequest& split : splits) {
    CorunForm form;
    form.form = "green_ctx";
    form.partition_label = split_label(split, sm_count);
    form.repeats = split.repeats;
    form.pairs = split.a_sms == split.b_sms ? symmetric : asymmetric;
    const unsigned b_wanted = split.b_sms == kRest ? sm_count - split.a_sms : split.b_sms;
    if (split.a_sms + b_wanted > sm_count || split.a_sms >= sm_count) {
      emit_form_failure(context, form, "the GPU has only " + std::to_string(sm_count) + " SMs", false);
      continue;
    }
    if (deadline.expired()) {
      emit_form_failure(context, form, "time budget used up before this form", false);
      continue;
    }
    std::unique_ptr<GreenContextPair> pair;
    try {
      pair = std::make_unique<GreenContextPair>(context.device.ordinal, split, form.notes);
      const std::set<unsigned> seen_a = observed_sms(pair->stream(0), sm_count);
      const std::set<unsigned> seen_b = observed_sms(pair->stream(1), sm_count);
      std::vector<unsigned> shared;
      std::set_intersection(seen_a.begin(), seen_a.end(), seen_b.begin(), seen_b.end(), std::back_inserter(shared));
      form.notes["observed_sms_a"] = seen_a.size();
      form.notes["observed_sms_b"] = seen_b.size();
      form.notes["observed_sms_shared"] = shared.size();  // 0: the groups really are disjoint
    } catch (const std::exception& failure) {
      // Unsupported driver or configuration: record why, keep going with the other forms.
      pair.reset();
      emit_form_failure(context, form, failure.what(), false);
      continue;
    }
    form.partition["a_sms"] = pair->sms(0);
    form.partition["b_sms"] = pair->sms(1);
    form.partition["a_active_thread_percentage"] = Json();
    form.partition["b_active_thread_percentage"] = Json();
    StreamPairExecutor executor({pair->stream(0), pair->stream(1)}, slots);
    run_corun_form(context, deadline, setup, form, executor);
  }
}

}  // namespace vgpusim::hwcal
