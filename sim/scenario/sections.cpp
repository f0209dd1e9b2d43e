// The scenario format's sections and keys: one table that the loader enforces and the reference doc prints.
#include <fmt/format.h>

#include "models/gpu/roofline.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/reference_markdown.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/scenario/loader_state.hpp"
#include "sim/scenario/workload_kind.hpp"

namespace vgpusim {

namespace {

// The sections before the workload kinds' in the reference: the top level, GPUs, sharing, tenants.
const std::vector<Section>& sections_before_workloads() {
  static const std::vector<Section> sections = [] {
    std::vector<Section> s;
    s.push_back({"", "The top level of a scenario file.",
                 {{"version", "integer", true, "", "format version; must be 1"},
                  {"name", "string", true, "", "a title for people; printed with the results"},
                  {"seed", "integer >= 0", false, "1", "seed from which every tenant's random stream is derived"},
                  {"replications", "integer 1-1000", false, "3",
                   "independent runs, each with its own seed (the first uses `seed`, the others seeds derived from "
                   "it); results are their means and the ± is a 95% interval across them (with 1: batch means within "
                   "the run)"},
                  {"start_jitter", "time", false, units::format(ScenarioBuilder::kStartJitter, units::Dim::Time),
                   "tenants without `start` begin at a random offset in [0, start_jitter), drawn per replication, so "
                   "that identical tenants are not in lockstep; 0s starts them together (and lets tenants with the "
                   "same workload, memory and stream share one baseline run)"},
                  {"duration", "time", false, "", "simulated time to run; needed when a workload has no count",
                   "until every tenant is done"},
                  {"fidelity", "exact | fluid", false, "exact",
                   "exact: every kernel and time slice is simulated; fluid: slices are averaged into rates and a "
                   "unit's kernels are merged into one phase"},
                  {"gpus", "list of gpus[]", true, "", "the physical GPUs"},
                  {"sharing", "mapping: GPU id -> sharing.<gpu>", false, "", "how each GPU is shared",
                   "passthrough on every GPU"},
                  {"tenants", "list of tenants[]", true, "", "who runs what where"},
                  {"host", "host", false, "",
                   "the CPU of the server the GPUs sit in, shared by the tenants' threads (data loaders, the "
                   "framework's dispatch)",
                   "no limit: host time never stretches"},
                  {"faults", "list of faults[]", false, "", "fatal faults to inject"},
                  {"compare", "list of compare[]", false, "", "article figures to print beside the prediction"},
                  {"metrics", "metrics", false, "", "what is recorded"}}});
    Section gpu{"gpus[]", "One physical GPU: a catalog device (`vgpusim list gpus`) with optional overrides.", {}};
    gpu.keys = {{"id", "string", true, "", "the scenario's name for this GPU, used by `sharing` and `tenants[].on`"},
                {"model", "catalog name", true, "", "a device of the GPU catalog, e.g. H100-SXM"}};
    for (const GpuField& f : gpu_fields())
      gpu.keys.push_back({f.name, std::string(units::dim_noun(static_cast<units::Dim>(f.dim))), false, "",
                          std::string("override: ") + f.help, "catalog value"});
    gpu.keys.push_back({"calibration", "path or none", false, "",
                        "a calibration file written by `vgpusim fit` for this GPU model (relative to the scenario); "
                        "its values replace the models' defaults for this GPU, the scenario's own values still win; "
                        "`none`: the models' defaults",
                        "the calibration shipped for the GPU model (models/calibration/), if any"});
    for (const ParamSpec& p : roofline_params())
      gpu.keys.push_back({p.name, std::string(units::dim_noun(p.dim)), false, "",
                          p.help + " (`" + p.qualified() + "`; source: " + p.source + ")", p.default_text()});  // read as its ParamSpec declares it
    s.push_back(gpu);
    s.push_back({"sharing.<gpu>",
                 "How one GPU is shared. `mode` names a sharing model; its parameters (below, under Sharing modes) "
                 "sit beside it.",
                 {{"mode", "sharing model name", true, "", "one of the models listed by `vgpusim list models`"}},
                 true});
    s.push_back({"sharing.<gpu> (import)",
                 "The sharing of a GPU read from a real cluster's configuration instead of `mode`: the NVIDIA "
                 "Kubernetes device plugin's config (time-slicing or MPS replicas) or an NVIDIA mig-parted layout "
                 "(docs/k8s-configs.md gives the mapping).",
                 {{"import", "device-plugin | mig-parted", true, "", "the configuration's kind"},
                  {"file", "file", true, "", "the configuration file, relative to the scenario"},
                  {"config", "string", false, "",
                   "mig-parted: the layout's name under `mig-configs` (required there); its entries that name this "
                   "GPU (by its index in `gpus`, from 0, or `all`) apply"}}});
    s.push_back({"sharing.<gpu>.partitions[]",
                 "One partition of a GPU whose mode partitions it (`mode: mig`; NVIDIA calls them GPU instances). "
                 "Tenants are placed on it with `on: <gpu>/<id>`.",
                 {{"id", "string", true, "", "the partition's name within its GPU"},
                  {"profile", "profile name", true, "", "e.g. 1g.10gb (see docs/models/mig.md)"},
                  {"sharing", "sharing.<gpu>", false, "",
                   "how the partition is shared among its tenants (any mode that does not partition)",
                   "mode: timeslice"}}});
    s.push_back({"sharing.<gpu>.reconfigure[]",
                 "A layout change of a partitioned GPU during the run. Partitions whose profile or placement changes, "
                 "or that disappear, drain (running kernels finish, no new ones start); then the GPU is reconfigured "
                 "for the mode's `reconfiguration_time`; then changed and new partitions come up. Partitions that "
                 "disappear end their tenants (failure `partition_removed`). Unchanged partitions run on.",
                 {{"at", "time", true, "", "when the change is asked for"},
                  {"partitions", "list of partitions[]", true, "", "the whole new layout, by partition id"}}});
    s.push_back({"host",
                 "The server's CPU, shared by every tenant's threads and those of processes outside the scenario "
                 "(docs/models/host-cpu.md). While the runnable threads outnumber the cores, each thread gets "
                 "cores / threads of one, and every tenant's host time (host phases, launch dispatch, think time) "
                 "takes threads / cores times longer: a mean field that counts every thread of the run's tenants "
                 "as runnable all the time. A tenant's baseline (alone) counts its own threads and the background's. "
                 "trace and llm workloads keep their host time.",
                 {{"cores", "number 1-1e6", true, "", "CPU cores (hardware threads) the tenants' processes may use"},
                  {"background_threads", "number 0-1e6", false, "0",
                   "runnable threads of other processes on the server (jobs on its other GPUs)"}}});
    s.push_back({"tenants[]", "A tenant: one process (or VM) with one workload on one GPU.",
                 {{"name", "string", true, "", "unique name; results are keyed by it"},
                  {"on", "GPU id or GPU id/partition id", true, "",
                   "which GPU (an id from `gpus`), or which partition of a partitioned GPU"},
                  {"memory", "size", false, "0 B",
                   "device memory allocated at start (without it: what a `measured` workload says it uses); when it does "
                   "not fit, the tenant fails with out-of-memory"},
                  {"start", "time or distribution", false, "",
                   "when the tenant starts; a distribution is drawn once per replication",
                   "uniform in [0, start_jitter)"},
                  {"stream", "string", false, "",
                   "name of the random stream the workload draws from; tenants with the same stream see the same "
                   "arrivals and kernel draws (to compare one load under different sharing)",
                   "the tenant's name"},
                  {"share", "mapping", false, "", "the sharing mode's per-tenant parameters (see Sharing modes below)",
                   "the mode's defaults"},
                  {"host_threads", "number > 0, at most 1e6", false, "1",
                   "CPU threads its process keeps runnable (its main thread plus data loader workers), counted "
                   "against `host.cores`"},
                  {"workload", "workload", true, "", "what it runs: exactly one of the workload kinds"}}});
    return s;
  }();
  return sections;
}

// The sections after the workload kinds' in the reference: kernels, faults, comparisons, plan files, metrics.
const std::vector<Section>& sections_after_workloads() {
  static const std::vector<Section> sections = [] {
    std::vector<Section> s;
    s.push_back({"distribution",
                 "A quantity that varies: where a key says \"time or distribution\", a plain value is a constant and "
                 "a mapping names a distribution. Draws are never negative (a negative normal draw is drawn again) "
                 "and come from the tenant's random stream. E.g. `host_time: {distribution: lognormal, mean: 20ms, "
                 "sd: 5ms}`.",
                 {{"distribution", "constant | uniform | normal | lognormal | exponential | gamma", true, "", "its shape"},
                  {"value", "as the key", false, "", "constant: the value"},
                  {"min", "as the key", false, "", "uniform: the lower end"},
                  {"max", "as the key", false, "", "uniform: the upper end (exclusive)"},
                  {"mean", "as the key", false, "", "normal, lognormal, exponential, gamma: the mean"},
                  {"sd", "as the key", false, "", "normal, lognormal, gamma: the standard deviation"}}});
    s.push_back({"kernel",
                 "A unit of GPU work, given either as work (FLOPs by precision, bytes, blocks) or as a measured "
                 "duration on a reference GPU. Its solo time on a GPU comes from the roofline model.",
                 {{"flops", "FLOP", false, "0 FLOP", "floating-point work at `precision`"},
                  {"precision", "fp16 | fp32 | fp64", false, "", "precision of `flops` (fp16 = tensor)",
                   "per workload"},
                  {"fp16", "FLOP", false, "0 FLOP", "FP16/BF16 tensor work"},
                  {"fp32", "FLOP", false, "0 FLOP", "FP32 work"},
                  {"fp64", "FLOP", false, "0 FLOP", "FP64 work"},
                  {"bytes", "size", false, "0 B", "bytes moved to and from device memory"},
                  {"blocks", "integer", false, "", "thread blocks; fewer than SMs leave SMs idle", "fills every SM"},
                  {"threads", "integer 1-1024", false, "",
                   "threads per block: with the GPU's resident threads per SM (catalog) its blocks run in whole waves "
                   "and, on GPUs with a fitted roofline.occupancy_saturation (A100-40GB, A100-80GB, A40, L40, V100), "
                   "its occupancy (blocks x threads over the GPU's thread slots) limits its bandwidth below that; "
                   "not with `duration`",
                   "unknown: neither modelled"},
                  {"working_set", "size", false, "",
                   "distinct bytes the kernels touch that the kernel before them left in L2 (the same buffers "
                   "again); within the GPU's L2 its bytes move at the L2 bandwidth (roofline.l2_bandwidth), split "
                   "among the unit's kernels like `bytes`",
                   "none: the bytes stream from DRAM"},
                  {"launch", "stream | graph | persistent", false, "stream",
                   "how its kernels follow one another, which sets what each pays beyond its roofline time: launched "
                   "on a stream (roofline.launch_overhead), as nodes of a CUDA graph (graph_launch_overhead) or as "
                   "iterations of one persistent kernel with a grid-wide barrier (grid_sync_overhead); with "
                   "`duration`, the overhead the measurement holds"},
                  {"duration", "time", false, "", "measured solo time on `on` (instead of flops and bytes)"},
                  {"on", "catalog name", false, "", "the GPU `duration` was measured on", "the tenant's GPU"},
                  {"bound", "memory | fp16 | fp32 | fp64", false, "memory",
                   "what limited the kernel on `on`; decides how `duration` scales to another GPU"}}});
    s.push_back({"faults[]",
                 "A fatal fault (e.g. an illegal memory access) in one tenant. The tenant stops; under modes without "
                 "fault isolation (mps) every tenant on the same GPU stops too.",
                 {{"tenant", "tenant name", true, "", "who faults"}, {"at", "time", true, "", "when"}}});
    s.push_back({"compare[]",
                 "A published figure and the metric of the simulation that predicts it; both are printed side by side "
                 "with their difference (results.json `comparisons`).",
                 {{"name", "string", true, "", "what is compared"},
                  {"tenant", "tenant name", true, "", "whose metric"},
                  {"versus", "tenant name", false, "", "the reference tenant, for the *_ratio metrics"},
                  {"metric", "throughput_ratio | time_ratio | latency_ratio | p99_ratio | relative_performance | "
                             "slowdown | vgpu_loss | throughput | failed",
                   true, "",
                   "throughput_ratio: tenant / versus throughput; time_ratio: versus / tenant throughput (time per "
                   "unit, tenant over versus); latency_ratio, p99_ratio: tenant / versus mean or p99 latency "
                   "(inference); relative_performance, slowdown, vgpu_loss: against the tenant's baseline; "
                   "throughput: units per second; failed: 1 if the tenant failed, else 0"},
                  {"article", "number", true, "", "the article's figure in the metric's terms"},
                  {"source", "string", true, "", "where the figure comes from"}}});
    s.push_back({"plan",
                 "The top level of a plan file (`vgpusim plan FILE`, or `vgpusim run` on it): which instance type, "
                 "how many, shared how, is the cheapest that meets every workload's SLOs.",
                 {{"version", "integer", true, "", "format version; must be 1"},
                  {"kind", "plan", true, "", "says this is a plan file"},
                  {"name", "string", true, "", "a title"},
                  {"seed", "integer >= 0", false, "1", "as in scenarios"},
                  {"duration", "time", false, "60 s", "simulated time of each candidate"},
                  {"fidelity", "exact | fluid", false, "fluid", "fidelity of each candidate's simulation"},
                  {"workloads", "list of plan.workloads[]", true, "", "what must run"},
                  {"instances", "list of instance names or plan.instances[]", true, "",
                   "candidate instance types: names from `vgpusim list instances`, or your own"},
                  {"max_instances", "integer", false, "4", "try 1 to this many instances of each type"},
                  {"placement", "search | fewest_tenants", false, "search",
                   "how replicas go onto a candidate's GPUs: `search` tries every grouping (each group simulated "
                   "alone on one GPU) when there are at most 4096 groupings of the workloads' replica counts, else "
                   "falls back to `fewest_tenants`: largest memory first, each on the GPU with the fewest tenants "
                   "that has room"},
                  {"sharing", "list of sharing.<gpu>", true, "",
                   "candidate sharing options, each a mode with its parameters; `{mode: mig}` (no partitions) searches MIG layouts"},
                  {"spot", "plan.spot", false, "", "also try every candidate on spot capacity"}}});
    s.push_back({"plan.spot", "Spot capacity: cheaper instances that are interrupted. An interrupted instance is away "
                              "for `restart`; requests arriving meanwhile miss their latency bound, and work since "
                              "the last checkpoint is redone (half a checkpoint interval on average).",
                 {{"discount", "fraction", false, "", "off on-demand, e.g. 60%",
                   "the instance type's catalog minimum (`vgpusim list instances --sources`)"},
                  {"interruptions", "rate", true, "", "interruptions per instance, e.g. 1/day"},
                  {"restart", "time", true, "", "until a replacement instance serves again, e.g. 5min"},
                  {"checkpoint_interval", "time", false, "0 s",
                   "work between checkpoints of training and deadline workloads (0: nothing is redone)"}}});
    s.push_back({"plan.instances[]", "An instance type of your own.",
                 {{"name", "string", true, "", "its name"},
                  {"gpu", "catalog name", true, "", "its GPU model"},
                  {"gpus", "integer", false, "1", "GPUs per instance"},
                  {"price", "price per time", true, "", "on-demand price, e.g. $1.20/h"},
                  {"spot_discount", "fraction", false, "", "spot price off on-demand, for `spot`", "none"}}});
    s.push_back({"plan.workloads[]", "A workload that must run, with its SLOs.",
                 {{"name", "string", true, "", "its name; replicas are name#1, name#2, ..."},
                  {"replicas", "integer", false, "1", "how many copies run"},
                  {"memory", "size", false, "0 B", "device memory per replica"},
                  {"workload", "workload", true, "",
                   "as tenants[].workload; an inference workload's `slo` counts as the replica's latency SLO"},
                  {"slo", "plan.workloads[].slo", false, "", "throughput or deadline SLOs"}}});
    s.push_back({"plan.workloads[].slo", "Throughput and completion SLOs of each replica.",
                 {{"throughput", "rate", false, "", "units (iterations, frames, ...) per second at least"},
                  {"deadline", "time", false, "", "the workload must finish within this"}}});
    s.push_back({"metrics", "What is recorded.",
                 {{"interval", "time", false, "", "width of the utilization time bins", "duration / 100, or 1 s"}}});
    return s;
  }();
  return sections;
}

}  // namespace

Section workload_section() {
  Section s{"tenants[].workload", "Exactly one of these keys.", {}};
  for (const WorkloadKindInfo& k : workload_kinds())
    s.keys.push_back({k.name, k.sections.front().path, false, "", k.help});
  return s;
}

std::vector<Section> scenario_sections() {
  std::vector<Section> all = sections_before_workloads();
  all.push_back(workload_section());
  for (const WorkloadKindInfo& k : workload_kinds()) all.insert(all.end(), k.sections.begin(), k.sections.end());
  const std::vector<Section>& after = sections_after_workloads();
  all.insert(all.end(), after.begin(), after.end());
  return all;
}

const Section& section_named(const std::string& path) {
  for (const std::vector<Section>* list : {&sections_before_workloads(), &sections_after_workloads()})
    for (const Section& s : *list)
      if (s.path == path) return s;
  for (const WorkloadKindInfo& k : workload_kinds())
    for (const Section& s : k.sections)
      if (s.path == path) return s;
  throw std::logic_error("no scenario section " + path);
}

std::string scenario_reference_markdown() {
  std::string md =
      "# Scenario reference\n\n"
      "Generated by `vgpusim list keys --markdown` from the tables the loader enforces; a test checks that this "
      "file matches. Values carry units (see docs/units.md): sizes `80GiB`, times `2ms`, bandwidths `4.8TB/s`, "
      "rates `40/s`, fractions `25%` or `0.25`. Unknown keys are errors.\n\n";
  md += keys_markdown(scenario_sections(), "##", "top-level");
  md += "## Sharing modes\n\nParameters sit beside `mode` in `sharing.<gpu>` under the part of their name after the "
        "dot (`timeslice.slice` is `slice:`); per-tenant ones go under `tenants[].share`. Calibration files name them "
        "in full.\n\n";
  for (const SharingModeInfo& m : sharing_modes()) {
    md += fmt::format("### `mode: {}`\n\n{}. Citation: {}.\n\n", m.name, m.description, m.citation);
    md += parameters_markdown(m.params);
  }
  return md;
}

}  // namespace vgpusim
