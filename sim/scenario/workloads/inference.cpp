// Workload kind `inference`: Poisson request arrivals served one at a time, with latency SLOs (models/workload).
#include <fmt/format.h>

#include "sim/scenario/loader_state.hpp"
#include "sim/scenario/workload_kind.hpp"

namespace vgpusim {

WorkloadKindInfo inference_workload_kind() {
  WorkloadKindInfo kind;
  kind.name = "inference";
  kind.help = "requests, open loop (Poisson) or closed loop (clients); reports latency percentiles and SLO attainment";
  kind.sections = {
      {"workload.inference",
       "Requests arrive as a Poisson process (`rate`, open loop) or from clients that each send the next request a "
       "think time after their answer (`clients`, closed loop). Each spends its host time on the CPU, then queues "
       "for the GPU, served one at a time in order; latency runs from arrival to the end of its GPU work. The vGPU "
       "loss compares mean latency in open loop, throughput in closed loop.",
       {{"rate", "rate", false, "", "open loop: mean arrival rate, e.g. 40/s (give `rate` or `clients`)"},
        {"clients", "integer", false, "", "closed loop: clients with one request each in flight"},
        {"think", "time or distribution", false, "0 s", "closed loop: a client's time between answer and next request"},
        {"host_time", "time or distribution", false, "0 s",
         "CPU time of each request before its GPU work (preprocessing, RPC), on parallel workers"},
        {"request", "kernel (default precision fp16)", true, "", "GPU work of one request"},
        {"kernels_per_request", "integer", false, "1", "exact fidelity splits a request into this many equal kernels"},
        {"size", "number or distribution", false, "1",
         "each request's work is `request` times a draw of this (e.g. {distribution: lognormal, mean: 1, sd: 0.5})"},
        {"requests", "integer", false, "", "requests to generate (all clients together)", "until the scenario ends"},
        {"batch", "batch", false, "", "dynamic batching", "one request at a time"},
        {"slo", "slo", false, "", "latency targets"}}},
      {"workload.inference.batch",
       "Dynamic batching, as inference servers do it (e.g. Triton's max batch size and queue delay): when the GPU is "
       "free, up to `max` queued requests are served as one batch; with fewer queued, the batch waits until its "
       "oldest request has waited `wait`. A batch's work is every request's, except `shared_bytes` of each "
       "request's bytes (the weights), read once per batch.",
       {{"max", "integer", true, "", "largest batch"},
        {"wait", "time", false, "0 s", "how long a batch short of `max` waits for more requests"},
        {"shared_bytes", "size", false, "0 B", "bytes of `request` read once per batch, not per request"}}},
      {"workload.inference.slo",
       "Latency targets: a request attains a target when its latency is at most the bound; the target is met when "
       "at least that percentile does.",
       {{"p50", "time", false, "", "bound for the median"},
        {"p90", "time", false, "", "bound for the 90th percentile"},
        {"p95", "time", false, "", "bound for the 95th percentile"},
        {"p99", "time", false, "", "bound for the 99th percentile"},
        {"p999", "time", false, "", "bound for the 99.9th percentile"}}},
  };
  kind.read = [](Loader& loader, const MapReader& r, const ScenarioGpu& gpu) -> WorkloadRef {
    auto t = std::make_shared<InferenceWorkload>();
    if (r.has("rate") == r.has("clients"))
      fail_at(r.file(), r.node(), r.path(), "give either `rate` (open loop) or `clients` (closed loop)");
    if (r.has("rate")) {
      t->rate = r.quantity("rate", units::Dim::Rate);
      if (!(t->rate > 0)) fail_at(r.file(), r.node("rate"), r.child_path("rate"), "expected a positive rate");
      if (r.has("think")) fail_at(r.file(), r.node("think"), r.child_path("think"), "`think` goes with `clients`");
    } else {
      t->clients = r.integer("clients", 1, 100000);
      t->think = loader.distribution(r, "think", units::Dim::Time, Distribution::constant(0));
    }
    t->host_time = loader.distribution(r, "host_time", units::Dim::Time, Distribution::constant(0));
    t->kernels_per_request = loader.count(r, "kernels_per_request");
    t->request = loader.kernel(r.node("request"), r.child_path("request"), "fp16", gpu, t->kernels_per_request);
    t->size = loader.distribution(r, "size", units::Dim::Count, Distribution::constant(1));
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
    t->requests = r.has("requests") ? r.integer("requests", 0, 1LL << 50) : -1;
    if (r.has("slo")) {
      MapReader s(r.file(), r.node("slo"), r.child_path("slo"), section_named("workload.inference.slo"));
      s.finish();
      const std::pair<const char*, double> keys[] = {
          {"p50", 50}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p999", 99.9}};
      for (const auto& [key, pct] : keys)
        if (s.has(key)) t->targets.push_back({pct, loader.positive(s, key, units::Dim::Time), ""});
    }
    return t;
  };
  return kind;
}

}  // namespace vgpusim
