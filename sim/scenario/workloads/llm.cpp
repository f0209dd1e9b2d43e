// Workload kind `llm`: an LLM server (models/workload/llm.hpp) with a model from the catalog
// (models/catalog/llm_models.yaml) or given by its shape, fed by a request trace, open-loop arrivals or clients.
#include <fmt/format.h>

#include <filesystem>

#include "sim/core/names.hpp"
#include "sim/io/llm_catalog.hpp"
#include "sim/io/llm_trace.hpp"
#include "sim/scenario/loader_state.hpp"
#include "sim/scenario/request_keys.hpp"
#include "sim/scenario/workload_kind.hpp"

namespace vgpusim {
namespace {

const std::vector<SloFigure>& llm_figures() {
  static const std::vector<SloFigure> f = {{"ttft", "time to first token"},
                                           {"tpot", "time per output token (a request's mean after its first)"},
                                           {"", "end-to-end latency"}};
  return f;
}

LlmShape read_shape(const MapReader& r, long long& max_position) {
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
  s.gated_mlp = m.boolean("gated_mlp");
  max_position = m.integer("max_position", 1, 1 << 24);
  const std::string error = llm_shape_error(s, 1);
  if (!error.empty()) fail_at(r.file(), r.node("model"), r.child_path("model"), error);
  return s;
}

WorkloadRef read_llm(Loader& loader, const MapReader& r, const ScenarioGpu& gpu) {
  const std::string& file = r.file();
  auto w = std::make_shared<LlmWorkload>();
  long long max_position = 0;
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
    max_position = static_cast<long long>(e->max_position);
  }
  // The server's parameters: their defaults, the GPU's calibration, then the scenario's own.
  LlmServerParams& g = w->server;
  g = LlmServerParams::table().read(loader.read_params(r, llm_server_params(), gpu.calibrated));
  const std::string shape_error = llm_shape_error(w->model, g.tensor_parallel);
  if (!shape_error.empty()) fail_at(file, r.node("tensor_parallel"), r.child_path("tensor_parallel"), shape_error);
  w->max_model_len = static_cast<double>(max_position);
  if (r.has("max_model_len")) {
    w->max_model_len = static_cast<double>(r.integer("max_model_len", 2, 1 << 24));
    if (w->max_model_len > static_cast<double>(max_position))
      fail_at(file, r.node("max_model_len"), r.child_path("max_model_len"),
              fmt::format("above the {} tokens {} was trained for", max_position, w->model.name));
  }
  if (g.max_batched_tokens < g.max_seqs && g.chunked_prefill)
    fail_at(file, r.node(), r.path(),
            fmt::format("max_batched_tokens ({}) below max_seqs ({}): a batch of decodes would not fit",
                        g.max_batched_tokens, g.max_seqs));

  // Requests.
  w->arrivals = read_request_arrivals(loader, r, true);
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
    const long long stride = r.integer("trace_stride", 1, 1 << 20);
    const long long first = r.integer("trace_start", 0, 1 << 20);
    if (first >= stride)
      fail_at(file, r.node("trace_start"), r.child_path("trace_start"),
              fmt::format("expected below trace_stride ({})", stride));
    auto mine = std::make_shared<std::vector<LlmRequest>>();
    auto times = std::make_shared<std::vector<double>>();
    for (size_t i = static_cast<size_t>(first); i < requests.size(); i += static_cast<size_t>(stride)) {
      mine->push_back(requests[i]);
      times->push_back(requests[i].arrival);
    }
    if (mine->empty())
      fail_at(file, r.node("trace"), r.child_path("trace"),
              fmt::format("no request left: the trace has {} and this replica takes every {}-th from the {}-th",
                          requests.size(), stride, first + 1));
    w->trace = std::move(mine);
    w->arrivals.trace_times = std::move(times);
    w->arrivals.trace_speed = loader.positive(r, "trace_speed", units::Dim::Ratio);
    for (const char* k : {"prompt_tokens", "output_tokens"})
      if (r.has(k)) fail_at(file, r.node(k), r.child_path(k), fmt::format("`{}` does not go with `trace`", k));
  } else {
    for (const char* k : {"trace_speed", "trace_stride", "trace_start"})
      if (r.has(k)) fail_at(file, r.node(k), r.child_path(k), fmt::format("`{}` goes with `trace`", k));
    w->prompt_tokens = loader.distribution(r, "prompt_tokens", units::Dim::Count);
    w->output_tokens = loader.distribution(r, "output_tokens", units::Dim::Count);
  }
  if (r.has("slo")) {
    MapReader s(file, r.node("slo"), r.child_path("slo"), section_named("workload.llm.slo"));
    s.finish();
    w->targets = read_slo(loader, s, llm_figures());
  }
  return w;
}

}  // namespace

WorkloadKindInfo llm_workload_kind() {
  WorkloadKindInfo kind;
  kind.name = "llm";
  kind.help = "an LLM server (continuous batching, chunked prefill, paged KV cache); reports TTFT, TPOT, latency and "
              "tokens/s";
  std::vector<KeySpec> keys = {
      {"model", "name or mapping", true, "", "a catalog model (`vgpusim list llm-models`) or its shape (section model)"}};
  // The server's parameters (the `llm` model's, docs/models/llm.md), then the keys of its requests.
  for (const ParamSpec& p : llm_server_params()) keys.push_back({p.name, p.type_text(), false, "", p.help, p.default_text()});
  for (KeySpec k : std::vector<KeySpec>{
           {"max_model_len", "integer", false, "", "longest prompt and output together; longer prompts are refused",
            "the model's max_position"},
           {"trace", "path", false, "", "requests from a CSV (arrived_at, num_prefill_tokens, num_decode_tokens)"},
           {"trace_speed", "ratio", false, "1", "arrivals this many times as fast as the trace's"},
           {"trace_stride", "integer", false, "1",
            "take every n-th request of the trace: one of n replicas behind a round-robin load balancer"},
           {"trace_start", "integer", false, "0",
            "with trace_stride: the first request this replica takes (0-based)"}})
    keys.push_back(std::move(k));
  for (KeySpec k : request_keys(true)) keys.push_back(std::move(k));
  keys.push_back({"prompt_tokens", "number or distribution", false, "512", "without a trace: prompt tokens per request"});
  keys.push_back({"output_tokens", "number or distribution", false, "128", "without a trace: tokens generated per request"});
  keys.push_back({"slo", "slo", false, "", "targets on ttft, tpot and latency"});
  kind.sections = {
      {"workload.llm",
       "A vLLM-style server (docs/models/llm.md). Every iteration it batches the running sequences' next tokens "
       "(decodes) and chunks of new prompts up to `max_batched_tokens`, admits new sequences while KV-cache blocks "
       "last, preempts the latest admitted (to recompute later) when they run out, and runs the batch's transformer "
       "ops through the kernel model after its CPU time. Its memory is `memory_fraction` of what its process sees "
       "(a MIG instance's, a vGPU's usable framebuffer, an MPS client's limit, else the GPU's): weights and "
       "activations first, the rest is KV cache. A request's latency runs from its arrival to its last token; "
       "results add ttft, tpot, output tokens/s, preemptions and KV-cache use.",
       keys},
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
      slo_section("workload.llm.slo", llm_figures()),
  };
  kind.read = read_llm;
  return kind;
}

}  // namespace vgpusim
