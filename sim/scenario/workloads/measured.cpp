// Workload kind `measured`: a job described by its solo throughput and nvidia-smi / DCGM utilization on a catalog
// GPU (models/workload/telemetry.hpp), replayed on the tenant's GPU, partition and sharing mode.
#include <utility>

#include <fmt/format.h>

#include "sim/io/calibration_file.hpp"
#include "models/workload/telemetry.hpp"
#include "sim/scenario/loader_state.hpp"
#include "sim/scenario/workload_kind.hpp"

namespace vgpusim {

WorkloadKindInfo measured_workload_kind() {
  WorkloadKindInfo kind;
  kind.name = "measured";
  kind.help = "a job described by its solo throughput and nvidia-smi / DCGM utilization; reports units/s";
  std::vector<KeySpec> mapping_keys;  // the `measured` model's parameters (docs/models/telemetry-workload.md)
  for (const ParamSpec& p : telemetry_params()) mapping_keys.push_back({p.name, p.type_text(), false, "", p.help, p.default_text()});
  kind.sections = {
      {"workload.measured",
       "A job as it ran alone on one GPU: its throughput and what nvidia-smi or DCGM showed. Each unit of work is "
       "host time then GPU work whose compute/memory mix and SM fill come from the utilizations "
       "(docs/models/telemetry-workload.md).",
       {{"gpu", "catalog GPU", true, "", "the GPU it was measured on"},
        {"throughput", "rate", true, "", "units of work per second alone (iterations, samples, requests...)"},
        {"gpu_util", "ratio", true, "",
         "share of time a kernel runs: nvidia-smi utilization.gpu, DCGM_FI_DEV_GPU_UTIL"},
        {"mem_util", "ratio", true, "",
         "share of time device memory is read or written: nvidia-smi utilization.memory, DCGM_FI_DEV_MEM_COPY_UTIL"},
        {"memory", "size", false, "0 B",
         "device memory used (nvidia-smi memory.used); the tenant allocates it unless it gives its own `memory`"},
        {"sm_active", "ratio", false, "", "DCGM_FI_PROF_SM_ACTIVE; sets the share of SMs its kernels occupy",
         "kernels fill every SM"},
        {"sm_occupancy", "ratio", false, "", "DCGM_FI_PROF_SM_OCCUPANCY; checked and recorded, not used",
         "not given"},
        {"dram_active", "ratio", false, "", "DCGM_FI_PROF_DRAM_ACTIVE; replaces mem_util for the memory side",
         "mem_util"},
        {"kernels_per_unit", "integer", false, "", "kernels per unit of work (exact fidelity)",
         "its GPU time per unit / kernel_time"},
        {"precision", "fp16 | fp32 | fp64", false, "fp32", "the pipes its compute runs on"},
        {"units", "integer", false, "", "units of work to run", "until the scenario ends"},
        {"batch", "number > 0", false, "", "samples per unit (its batch size); needed with `profiles`", "not given"},
        {"profiles", "list of profiles[]", false, "",
         "the same job alone on the same GPU at other batch sizes: the share of its host time per unit that grows in "
         "proportion to the batch (its input pipeline) runs beside the GPU, as `host_overlap` (unless given)",
         "host_overlap's value"}}},
      {"workload.measured.profiles[]",
       "The same job (model, data, precision) measured alone on the same GPU at another batch size.",
       {{"batch", "number > 0", true, "", "samples per unit"},
        {"throughput", "rate", true, "", "units per second alone at that batch"},
        {"gpu_util", "ratio", true, "", "nvidia-smi utilization.gpu at that batch"}}},
  };
  for (KeySpec& k : mapping_keys) kind.sections.front().keys.push_back(std::move(k));
  kind.read = [](Loader& loader, const MapReader& r, const ScenarioGpu& tenant_gpu) -> WorkloadRef {
    SoloTelemetry t;
    const std::string gpu = r.string("gpu");
    const CatalogEntry* e = loader.catalog.find(gpu);
    if (!e) loader.unknown_gpu_model(r.node("gpu"), r.child_path("gpu"), gpu);
    t.throughput = r.quantity("throughput", units::Dim::Rate);
    t.gpu_util = r.quantity("gpu_util", units::Dim::Ratio);
    t.mem_util = r.quantity("mem_util", units::Dim::Ratio);
    t.memory = loader.nonnegative(r, "memory", units::Dim::Bytes);
    for (auto [key, field] : {std::pair{"sm_active", &t.sm_active}, std::pair{"sm_occupancy", &t.sm_occupancy},
                              std::pair{"dram_active", &t.dram_active}})
      if (r.has(key)) {
        *field = r.quantity(key, units::Dim::Ratio);
        if (*field < 0) fail_at(r.file(), r.node(key), r.child_path(key), "expected a share from 0% to 100%");
      }
    t.kernels_per_unit = r.has("kernels_per_unit") ? loader.count(r, "kernels_per_unit") : 0;
    const std::string p = r.has("precision") ? r.choice("precision", {"fp16", "fp32", "fp64"}) : "fp32";
    t.precision = p == "fp16" ? KernelBound::FP16 : p == "fp64" ? KernelBound::FP64 : KernelBound::FP32;
    for (const auto& [field, message] : telemetry_problems(t)) {
      const std::string key = field == "kernels_per_unit" || r.has(field) ? field : "gpu_util";
      fail_at(r.file(), r.node(key), r.child_path(key), message);
    }
    const long long units = r.has("units") ? r.integer("units", 0, 1LL << 50) : -1;
    // Its profiles at other batch sizes (with its own): the input pipeline's share of its host time.
    double pipeline = -1;
    if (r.has("profiles")) {
      if (!r.has("batch"))
        fail_at(r.file(), r.node("profiles"), r.child_path("profiles"), "needs `batch`, this profile's batch size");
      const double batch = loader.positive(r, "batch", units::Dim::Count);
      std::vector<BatchProfile> same_job{{batch, t.throughput, t.gpu_util}};
      const YAML::Node list = r.node("profiles");
      if (!list.IsSequence() || list.size() == 0)
        fail_at(r.file(), list, r.child_path("profiles"), "expected a non-empty list of {batch, throughput, gpu_util}");
      for (size_t i = 0; i < list.size(); ++i) {
        MapReader m(r.file(), list[i], fmt::format("{}[{}]", r.child_path("profiles"), i),
                    section_named("workload.measured.profiles[]"));
        m.finish();
        BatchProfile b{loader.positive(m, "batch", units::Dim::Count),
                       loader.positive(m, "throughput", units::Dim::Rate), m.quantity("gpu_util", units::Dim::Ratio)};
        if (!(b.gpu_util > 0) || b.gpu_util > 1)
          fail_at(m.file(), m.node("gpu_util"), m.child_path("gpu_util"), "expected a share above 0% and at most 100%");
        same_job.push_back(b);
      }
      pipeline = input_pipeline_share(same_job, batch);
    } else if (r.has("batch")) {
      loader.positive(r, "batch", units::Dim::Count);
    }
    // The measured GPU's roofline: the tenant GPU's (with its calibration) when it is the same model, else the
    // measured GPU's shipped calibration.
    const RooflineParams perf = gpu == tenant_gpu.spec.name ? tenant_gpu.performance
                                                          : RooflineParams::table().with(builtin_overrides(gpu));
    // How its telemetry becomes a host program: the defaults, the tenant GPU's calibration, then its own keys.
    TelemetryMapping mapping =
        TelemetryMapping::table().read(loader.read_params(r, telemetry_params(), tenant_gpu.calibrated));
    if (pipeline >= 0 && !r.has("host_overlap")) mapping.host_overlap = pipeline;
    return measured_workload(t, e->spec, perf, units, mapping);
  };
  return kind;
}

}  // namespace vgpusim
