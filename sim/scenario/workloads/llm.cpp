// Workload kind `llm`: an LLM server (models/workload/llm.hpp) with a model from the catalog
// (models/catalog/llm_models.yaml) or given by its shape, fed by a request trace, open-loop arrivals or clients.
#include <fmt/format.h>

#include <filesystem>

#include "sim/core/names.hpp"
#include "sim/io/llm_catalog.hpp"
#include "sim/scenario/loader_state.hpp"
#include "sim/scenario/workload_kind.hpp"

namespace vgpusim {
namespace {

constexpr const char* kSloKeys[] = {"ttft_p50", "ttft_p90", "ttft_p99", "tpot_p50", "tpot_p90",
                                    "tpot_p99", "p50",      "p90",      "p99"};

LlmShape read_shape(const MapReader& r, double& max_position) {
  MapReader m(r.file(), r.node("model"), r.child_path("model"), section_named("workload.llm.model"));
  m.finish();
  LlmShape s;
  s.name = m.has("name") ? m.string("name") : "custom model";
  s.layers = static_cast<int>(m.integer("layers", 1, 1000));
  s.hidden = static_cast<double>(m.integer("hidden", 1, 1 << 20));
  s.heads = static_cast<double>(m.integer("heads", 1, 1 << 16));
  s.kv_heads = m.has("kv_heads") ? static_cast<double>(m.integer("kv_heads", 1, 1 << 16)) : s.heads;
  s.intermediate = static_cast<double>(m.integer("intermediate", 1, 1 << 22));
  s.vocab = static_cast<double>(m.integer("vocab", 1, 1 << 24));
  s.gated_mlp = m.has("gated_mlp") ? m.boolean("gated_mlp") : true;
  max_position = m.has("max_position") ? static_cast<double>(m.integer("max_position", 1, 1 << 24)) : 4096;
  const std::string error = llm_shape_error(s, 1);
  if (!error.empty()) fail_at(r.file(), r.node("model"), r.child_path("model"), error);
  return s;
}

WorkloadRef read_llm(Loader& loader, const MapReader& r, const ScenarioGpu&) {
  const std::string& file = r.file();
  auto w = std::make_shared<LlmWorkload>();
  double max_position = 0;
  if (r.node("model").IsMap()) {
    w->model = read_shape(r, max_position);
  } else {
    const std::string name = r.string("model");
    const LlmModelEntry* e = find_llm_model(name);
    if (!e)
      fail_at(file, r.node("model"), r.child_path("model"),
              fmt::format("unknown model '{}'{}; known: {}", name, did_you_mean_suffix(name, llm_model_names()),
                          fmt::join(llm_model_names(), ", ")));
    w->model = e->shape;
    max_position = e->max_position;
  }
  LlmEngine& g = w->engine;
  if (r.has("tensor_parallel")) g.tensor_parallel = static_cast<int>(r.integer("tensor_parallel", 1, 64));
  const std::string shape_error = llm_shape_error(w->model, g.tensor_parallel);
  if (!shape_error.empty()) fail_at(file, r.node("tensor_parallel"), r.child_path("tensor_parallel"), shape_error);
  if (r.has("max_seqs")) g.max_seqs = static_cast<int>(r.integer("max_seqs", 1, 1 << 20));
  if (r.has("max_batched_tokens")) g.max_batched_tokens = static_cast<int>(r.integer("max_batched_tokens", 1, 1 << 24));
  if (r.has("chunked_prefill")) g.chunked_prefill = r.boolean("chunked_prefill");
  if (r.has("block_size")) g.block_size = static_cast<int>(r.integer("block_size", 1, 1 << 16));
  if (r.has("memory_fraction")) {
    g.memory_fraction = r.quantity("memory_fraction", units::Dim::Ratio);
    if (!(g.memory_fraction > 0 && g.memory_fraction <= 1))
      fail_at(file, r.node("memory_fraction"), r.child_path("memory_fraction"), "expected a fraction in (0, 1]");
  }
  g.max_model_len = max_position;
  if (r.has("max_model_len")) {
    g.max_model_len = static_cast<double>(r.integer("max_model_len", 2, 1 << 24));
    if (g.max_model_len > max_position)
      fail_at(file, r.node("max_model_len"), r.child_path("max_model_len"),
              fmt::format("above the {} tokens {} was trained for", max_position, w->model.name));
  }
  if (r.has("cpu_per_iteration")) g.cpu_base = loader.nonnegative(r, "cpu_per_iteration", units::Dim::Time);
  if (r.has("cpu_per_sequence")) g.cpu_per_sequence = loader.nonnegative(r, "cpu_per_sequence", units::Dim::Time);
  if (r.has("link_bandwidth")) g.link_bandwidth = loader.positive(r, "link_bandwidth", units::Dim::Bandwidth);
  if (r.has("link_latency")) g.link_latency = loader.nonnegative(r, "link_latency", units::Dim::Time);
  if (g.max_batched_tokens < g.max_seqs && g.chunked_prefill)
    fail_at(file, r.node(), r.path(),
            fmt::format("max_batched_tokens ({}) below max_seqs ({}): a batch of decodes would not fit",
                        g.max_batched_tokens, g.max_seqs));

  // Requests.
  const int sources = (r.has("trace") ? 1 : 0) + (r.has("rate") ? 1 : 0) + (r.has("clients") ? 1 : 0);
  if (sources != 1)
    fail_at(file, r.node(), r.path(), "give one of `trace`, `rate` (open loop) or `clients` (closed loop)");
  if (r.has("trace")) {
    std::filesystem::path path = r.string("trace");
    if (path.is_relative()) path = std::filesystem::path(file).parent_path() / path;
    std::vector<LlmRequest> requests;
    try {
      requests = read_llm_trace(path.string());
    } catch (const InputError& e) {
      fail_at(file, r.node("trace"), r.child_path("trace"), e.what());
    }
    // One replica's share of the trace behind a round-robin load balancer.
    const long long stride = r.has("trace_stride") ? r.integer("trace_stride", 1, 1 << 20) : 1;
    const long long first = r.has("trace_start") ? r.integer("trace_start", 0, 1 << 20) : 0;
    if (first >= stride)
      fail_at(file, r.node("trace_start"), r.child_path("trace_start"),
              fmt::format("expected below trace_stride ({})", stride));
    std::vector<LlmRequest> mine;
    for (size_t i = static_cast<size_t>(first); i < requests.size(); i += static_cast<size_t>(stride))
      mine.push_back(requests[i]);
    if (mine.empty())
      fail_at(file, r.node("trace"), r.child_path("trace"),
              fmt::format("no request left: the trace has {} and this replica takes every {}-th from the {}-th",
                          requests.size(), stride, first + 1));
    w->trace = std::make_shared<const std::vector<LlmRequest>>(std::move(mine));
    if (r.has("trace_speed")) w->trace_speed = loader.positive(r, "trace_speed", units::Dim::Ratio);
    for (const char* k : {"prompt_tokens", "output_tokens", "cv", "think"})
      if (r.has(k)) fail_at(file, r.node(k), r.child_path(k), fmt::format("`{}` does not go with `trace`", k));
  } else {
    for (const char* k : {"trace_speed", "trace_stride", "trace_start"})
      if (r.has(k)) fail_at(file, r.node(k), r.child_path(k), fmt::format("`{}` goes with `trace`", k));
    if (r.has("rate")) {
      w->rate = loader.positive(r, "rate", units::Dim::Rate);
      if (r.has("cv")) w->cv = loader.positive(r, "cv", units::Dim::Ratio);
      if (r.has("think")) fail_at(file, r.node("think"), r.child_path("think"), "`think` goes with `clients`");
    } else {
      w->clients = r.integer("clients", 1, 100000);
      w->think = loader.distribution(r, "think", units::Dim::Time, Distribution::constant(0));
      if (r.has("cv")) fail_at(file, r.node("cv"), r.child_path("cv"), "`cv` goes with `rate`");
    }
    w->prompt_tokens = loader.distribution(r, "prompt_tokens", units::Dim::Count, w->prompt_tokens);
    w->output_tokens = loader.distribution(r, "output_tokens", units::Dim::Count, w->output_tokens);
  }
  if (r.has("requests")) w->requests = r.integer("requests", 0, 1LL << 40);
  if (r.has("slo")) {
    MapReader s(file, r.node("slo"), r.child_path("slo"), section_named("workload.llm.slo"));
    s.finish();
    for (const char* key : kSloKeys) {
      if (!s.has(key)) continue;
      const std::string k = key;
      const size_t p = k.rfind('p');
      const std::string metric = p > 0 ? k.substr(0, p - 1) : "";
      w->targets.push_back({std::stod(k.substr(p + 1)), loader.positive(s, key, units::Dim::Time), metric});
    }
  }
  return w;
}

}  // namespace

WorkloadKindInfo llm_workload_kind() {
  WorkloadKindInfo kind;
  kind.name = "llm";
  kind.help = "an LLM server (continuous batching, chunked prefill, paged KV cache); reports TTFT, TPOT, latency and "
              "tokens/s";
  std::vector<KeySpec> slo;
  for (const char* key : kSloKeys) {
    const std::string k = key;
    const std::string what = k.starts_with("ttft")   ? "time to first token"
                             : k.starts_with("tpot") ? "time per output token (a request's mean after its first)"
                                                     : "end-to-end latency";
    slo.push_back(
        {k, "time", false, "", fmt::format("bound for the {} percentile of the {}", k.substr(k.rfind('p') + 1), what)});
  }
  kind.sections = {
      {"workload.llm",
       "A vLLM-style server (docs/models/llm.md). Every iteration it batches the running sequences' next tokens "
       "(decodes) and chunks of new prompts up to `max_batched_tokens`, admits new sequences while KV-cache blocks "
       "last, preempts the latest admitted (to recompute later) when they run out, and runs the batch's transformer "
       "ops through the kernel model after its CPU time. Its memory is `memory_fraction` of what its process sees "
       "(a MIG instance's, a vGPU's usable framebuffer, an MPS client's limit, else the GPU's): weights and "
       "activations first, the rest is KV cache. A request's latency runs from its arrival to its last token; "
       "results add ttft, tpot, output tokens/s, preemptions and KV-cache use.",
       {{"model", "name or mapping", true, "",
         "a catalog model (`vgpusim list llm-models`) or its shape (section model)"},
        {"tensor_parallel", "integer", false, "1",
         "GPUs the model is split over; the tenant plays one shard, the others assumed to run alike in step"},
        {"max_seqs", "integer", false, "256", "most sequences in a batch (vLLM max_num_seqs)"},
        {"max_batched_tokens", "integer", false, "2048", "token budget of an iteration (vLLM max_num_batched_tokens)"},
        {"chunked_prefill", "boolean", false, "true",
         "prompts split into chunks that share iterations with decodes; false: waiting prompts run whole, alone"},
        {"block_size", "integer", false, "16", "tokens per KV-cache block"},
        {"memory_fraction", "ratio", false, "90%",
         "share of the memory it sees that the server takes (vLLM "
         "gpu_memory_utilization)"},
        {"max_model_len", "integer", false, "", "longest prompt and output together; longer prompts are refused",
         "the model's max_position"},
        {"cpu_per_iteration", "time", false, "2.02 ms",
         "CPU time of an iteration (scheduling, inputs, sampling, outputs) besides the per-sequence part"},
        {"cpu_per_sequence", "time", false, "0.171 ms", "CPU time per sequence in the batch"},
        {"link_bandwidth", "bandwidth", false, "300 GB/s", "tensor parallelism: per direction, for the all-reduces"},
        {"link_latency", "time", false, "3.4 us", "tensor parallelism: per ring step"},
        {"trace", "path", false, "", "requests from a CSV (arrived_at, num_prefill_tokens, num_decode_tokens)"},
        {"trace_speed", "ratio", false, "1", "arrivals this many times as fast as the trace's"},
        {"trace_stride", "integer", false, "1",
         "take every n-th request of the trace: one of n replicas behind a round-robin load balancer"},
        {"trace_start", "integer", false, "0", "with trace_stride: the first request this replica takes (0-based)"},
        {"rate", "rate", false, "", "open loop: mean arrival rate"},
        {"cv", "ratio", false, "1", "open loop: inter-arrival coefficient of variation (gamma; 1 = Poisson)"},
        {"clients", "integer", false, "", "closed loop: clients with one request each in flight"},
        {"think", "time or distribution", false, "0 s", "closed loop: between an answer and the next request"},
        {"prompt_tokens", "number or distribution", false, "512", "without a trace: prompt tokens per request"},
        {"output_tokens", "number or distribution", false, "128", "without a trace: tokens generated per request"},
        {"requests", "integer", false, "", "requests to serve", "the whole trace, or until the scenario ends"},
        {"slo", "slo", false, "", "targets on ttft, tpot and latency"}}},
      {"workload.llm.model",
       "A model by its shape (Hugging Face config.json names in brackets).",
       {{"name", "string", false, "", "for messages", "custom model"},
        {"layers", "integer", true, "", "transformer layers (num_hidden_layers)"},
        {"hidden", "integer", true, "", "hidden size (hidden_size)"},
        {"heads", "integer", true, "", "attention heads (num_attention_heads)"},
        {"kv_heads", "integer", false, "", "key/value heads (num_key_value_heads)", "heads"},
        {"intermediate", "integer", true, "", "MLP size (intermediate_size)"},
        {"vocab", "integer", true, "", "vocabulary (vocab_size)"},
        {"gated_mlp", "boolean", false, "true", "SwiGLU MLP (gate and up projections)"},
        {"max_position", "integer", false, "4096", "tokens it was trained for (max_position_embeddings)"}}},
      {"workload.llm.slo",
       "Targets per request: a target is met when at least its percentile of the requests is within the bound. "
       "A request is good (counted in good_requests) when it meets every bound.",
       slo},
  };
  kind.read = read_llm;
  return kind;
}

}  // namespace vgpusim
