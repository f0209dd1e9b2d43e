// Workload kind `graph`: a framework model as its op graph (a per-op profile in NeuSight's torch.fx format), each
// op's kernels from its shapes timed by the operator model on the GPU or partition the tenant runs on
// (models/gpu/op_model.hpp): as an inference service (one forward pass per request) or as training iterations.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "models/workload/fx_graph.hpp"
#include "models/workload/model_shapes.hpp"
#include "sim/core/errors.hpp"
#include "sim/io/neusight.hpp"
#include "sim/scenario/loader_state.hpp"
#include "sim/scenario/request_keys.hpp"
#include "sim/scenario/workload_kind.hpp"

namespace vgpusim {
namespace {

const std::vector<SloFigure>& graph_figures() {
  static const std::vector<SloFigure> f = {{"", "latency"}};
  return f;
}

// The profile's kernels, each with how often it runs in one pass (the traced layer `layers` times), merged where
// the same kernel recurs.
std::shared_ptr<const OpGraph> profile_graph(const std::vector<NeusightOp>& ops, bool training) {
  std::vector<FxNode> nodes;
  std::vector<double> repeats;
  for (const NeusightOp& op : ops) {
    nodes.push_back(op.node);
    repeats.push_back(op.repeat);
  }
  return std::make_shared<const OpGraph>(graph_kernels(nodes, training, repeats));
}

}  // namespace

WorkloadKindInfo graph_workload_kind() {
  WorkloadKindInfo kind;
  kind.name = "graph";
  kind.help = "a framework model as its op graph (per-op shapes), timed by the operator model on the GPU or "
              "partition it runs on; an inference service or training iterations";
  std::vector<KeySpec> keys = {
      {"profile", "file", true, "",
       "the model's per-op profile in NeuSight's torch.fx format (CSV: op, target, input_shapes, output_shape, "
       "dtype, ...), relative to the scenario file; only its shapes are used"},
      {"layers", "integer", false, "",
       "times its traced layer (the nodes of layer 0) repeats in one pass", "num_layer of the .json beside it, else 1"},
      {"pass", "forward | training", false, "forward",
       "forward: one forward pass per request (an inference service); training: one forward + backward + gradient "
       "accumulation per iteration"},
      {"iterations", "integer", false, "", "pass training: iterations to run", "until the scenario ends"},
      {"host_time", "time or distribution", false, "0 s",
       "CPU time of each request or iteration before its GPU work, during which the GPU is idle"}};
  for (KeySpec k : request_keys()) keys.push_back(std::move(k));
  keys.push_back({"slo", "slo", false, "", "pass forward: latency targets"});
  kind.sections = {
      {"workload.graph",
       "A model as its op graph: every node of the profile becomes the kernels it launches, from its shapes "
       "(docs/models/op-model.md: linears and batched products as 128 x 128 tiles over the SMs, memory-bound ops at "
       "their class's bandwidth), and a pass's time on the tenant's GPU or partition is their sum, from the GPU's "
       "catalog figures alone (the profile's measured times are not used). With `pass: forward` it is an inference "
       "service (the keys of `workload.inference`: `rate` or `clients`, `requests`, ...), one pass per request; with "
       "`pass: training`, iterations of one training step. Its kernels run back to back without launch gaps (exact "
       "fidelity: as many equal kernels as the pass launches), and under MPS or beside a neighbour they draw the SMs "
       "and bandwidth their tiles and bytes ask for.",
       keys},
      slo_section("workload.graph.slo", graph_figures()),
  };
  kind.read = [](Loader& loader, const MapReader& r, const ScenarioGpu& gpu) -> WorkloadRef {
    (void)gpu;
    std::filesystem::path csv = r.string("profile");
    if (csv.is_relative()) csv = std::filesystem::path(r.file()).parent_path() / csv;
    std::filesystem::path json = csv;
    json.replace_extension(".json");
    const bool training = r.choice("pass", {"forward", "training"}) == "training";
    KernelSpec work;
    try {
      if (!std::filesystem::is_regular_file(csv)) throw InputError(fmt::format("{}: no such file", csv.string()));
      int layers = 1;
      if (r.has("layers"))
        layers = static_cast<int>(r.integer("layers", 1, 100000));
      else if (std::filesystem::exists(json))
        layers = read_neusight_layers(json.string());
      work.graph = profile_graph(read_neusight_profile(csv.string(), layers), training);
    } catch (const InputError& e) {
      fail_at(r.file(), r.node("profile"), r.child_path("profile"), e.what());
    }
    if (work.graph->kernels().empty())
      fail_at(r.file(), r.node("profile"), r.child_path("profile"), "the profile has no op that launches a kernel");
    work.overhead_share = 0;  // each kernel's GPU-side floor is in the op model's time
    // Exact fidelity runs a pass as as many equal kernels as it launches, so a neighbour, a limiter or a time
    // slice meets it at a kernel's granularity (fluid fidelity merges them).
    const int kernels = static_cast<int>(std::clamp(std::round(work.graph->launches()), 1.0, 100000.0));
    const Distribution host = loader.distribution(r, "host_time", units::Dim::Time);
    if (training) {
      for (const char* k : {"rate", "clients", "requests", "slo"})
        if (r.has(k)) fail_at(r.file(), r.node(k), r.child_path(k), "goes with pass: forward (requests), not training");
      auto t = std::make_shared<TrainingWorkload>();
      t->iterations = r.has("iterations") ? r.integer("iterations", 0, 1LL << 50) : -1;
      t->step = work;
      t->kernels_per_step = kernels;
      t->host_time = host;
      return t;
    }
    if (r.has("iterations"))
      fail_at(r.file(), r.node("iterations"), r.child_path("iterations"), "goes with pass: training");
    auto t = std::make_shared<InferenceWorkload>();
    t->arrivals = read_request_arrivals(loader, r);
    t->host_time = host;
    t->request = work;
    t->kernels_per_request = kernels;
    if (r.has("slo")) {
      MapReader s(r.file(), r.node("slo"), r.child_path("slo"), section_named("workload.graph.slo"));
      s.finish();
      t->targets = read_slo(loader, s, graph_figures());
    }
    return t;
  };
  return kind;
}

}  // namespace vgpusim
