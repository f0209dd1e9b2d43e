// Workload kind `inference`: requests (open or closed loop) served one at a time or in batches, with latency SLOs
// (models/workload).
#include <fmt/format.h>

#include "sim/scenario/loader_state.hpp"
#include "sim/scenario/request_keys.hpp"
#include "sim/scenario/workload_kind.hpp"

namespace vgpusim {
namespace {

const std::vector<SloFigure>& inference_figures() {
  static const std::vector<SloFigure> f = {{"", "latency"}};
  return f;
}

}  // namespace

WorkloadKindInfo inference_workload_kind() {
  WorkloadKindInfo kind;
  kind.name = "inference";
  kind.help = "requests, open loop (Poisson) or closed loop (clients); reports latency percentiles and SLO attainment";
  std::vector<KeySpec> keys = request_keys();
  keys.pop_back();  // `requests` after the request's own keys
  for (KeySpec k : std::vector<KeySpec>{
           {"host_time", "time or distribution", false, "0 s",
            "CPU time of each request before its GPU work (preprocessing, RPC), on parallel workers"},
           {"request", "kernel (default precision fp16)", true, "", "GPU work of one request"},
           {"kernels_per_request", "integer", false, "1", "exact fidelity splits a request into this many equal kernels"},
           {"size", "number or distribution", false, "1",
            "each request's work is `request` times a draw of this (e.g. {distribution: lognormal, mean: 1, sd: 0.5})"},
           requests_key(),
           {"batch", "batch", false, "", "dynamic batching", "one request at a time"},
           {"slo", "slo", false, "", "latency targets"}})
    keys.push_back(std::move(k));
  kind.sections = {
      {"workload.inference",
       "Requests arrive at a rate (`rate`, open loop: Poisson, or gamma gaps with `cv`) or from clients that each "
       "send the next request a think time after their answer (`clients`, closed loop). Each spends its host time "
       "on the CPU, then queues for the GPU, served one at a time in order; latency runs from arrival to the end of "
       "its GPU work. The vGPU loss compares mean latency in open loop, throughput in closed loop.",
       keys},
      {"workload.inference.batch",
       "Dynamic batching, as inference servers do it (e.g. Triton's max batch size and queue delay): when the GPU is "
       "free, up to `max` queued requests are served as one batch; with fewer queued, the batch waits until its "
       "oldest request has waited `wait`. A batch's work is every request's, except `shared_bytes` of each "
       "request's bytes (the weights), read once per batch.",
       {{"max", "integer", true, "", "largest batch"},
        {"wait", "time", false, "0 s", "how long a batch short of `max` waits for more requests"},
        {"shared_bytes", "size", false, "0 B", "bytes of `request` read once per batch, not per request"}}},
      slo_section("workload.inference.slo", inference_figures()),
  };
  kind.read = [](Loader& loader, const MapReader& r, const ScenarioGpu& gpu) -> WorkloadRef {
    auto t = std::make_shared<InferenceWorkload>();
    t->arrivals = read_request_arrivals(loader, r);
    t->host_time = loader.distribution(r, "host_time", units::Dim::Time);
    t->kernels_per_request = loader.count(r, "kernels_per_request");
    t->request = loader.kernel(r.node("request"), r.child_path("request"), "fp16", gpu, t->kernels_per_request);
    t->size = loader.distribution(r, "size", units::Dim::Count);
    if (r.has("batch")) {
      MapReader b(r.file(), r.node("batch"), r.child_path("batch"), section_named("workload.inference.batch"));
      b.finish();
      t->batch_max = static_cast<int>(b.integer("max", 1, 1 << 20));
      t->batch_wait = loader.nonnegative(b, "wait", units::Dim::Time);
      t->shared_bytes = loader.nonnegative(b, "shared_bytes", units::Dim::Bytes);
      if (t->shared_bytes > t->request.bytes)
        fail_at(r.file(), b.node("shared_bytes"), b.child_path("shared_bytes"),
                fmt::format("{} is more than the request's {} bytes", units::format(t->shared_bytes, units::Dim::Bytes),
                            units::format(t->request.bytes, units::Dim::Bytes)));
    }
    if (r.has("slo")) {
      MapReader s(r.file(), r.node("slo"), r.child_path("slo"), section_named("workload.inference.slo"));
      s.finish();
      t->targets = read_slo(loader, s, inference_figures());
    }
    return t;
  };
  return kind;
}

}  // namespace vgpusim
