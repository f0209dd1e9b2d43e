// LLM serving benchmark: one hour of the Azure conversation trace (19,366 requests) served by one Llama-3-8B server
// on one H100, exact fidelity. Target: under 5 s of simulation; prints the simulator's iterations and events per
// second and the ratio to a bare heap loop of the same event count (measured in the same run).
// Run: build/tests/llm_bench [TRACE] (default: scenarios/traces/azure-llm/splitwise_conv.csv).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <queue>
#include <random>
#include <string>

#include "sim/io/gpu_catalog.hpp"
#include "sim/run/simulation.hpp"
#include "sim/scenario/loader.hpp"

namespace {
double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double bare_heap_events_per_s(uint64_t events) {
  const double t0 = now_s();
  std::priority_queue<std::pair<double, uint64_t>, std::vector<std::pair<double, uint64_t>>, std::greater<>> q;
  std::mt19937_64 gen(1);
  std::uniform_real_distribution<double> dist(0.5, 1.5);
  for (uint64_t i = 0; i < 4; ++i) q.push({dist(gen), i});
  double sink = 0;
  for (uint64_t n = 0; n < events; ++n) {
    const auto [t, id] = q.top();
    q.pop();
    sink += static_cast<double>(id);
    q.push({t + dist(gen), id});
  }
  if (sink < 0) std::printf("%g", sink);
  return static_cast<double>(events) / (now_s() - t0);
}
}  // namespace

int main(int argc, char** argv) {
  const std::string trace = argc > 1 ? argv[1] : std::string(VGPUSIM_LLM_TRACES) + "/splitwise_conv.csv";
  if (!std::filesystem::exists(trace)) {
    std::printf("llm benchmark skipped: %s not found\n", trace.c_str());
    return 0;
  }
  const std::string text =
      "version: 1\nname: llm bench\nfidelity: exact\ngpus: [{id: g0, model: H100-SXM}]\n"
      "sharing: {g0: {mode: passthrough}}\ntenants:\n"
      "  - {name: chat, on: g0, workload: {llm: {model: Llama-3-8B, trace: \"" + trace + "\"}}}\n";
  const double t0 = now_s();
  const vgpusim::Scenario sc = vgpusim::load_scenario_text(text, "bench.yaml", vgpusim::builtin_catalog());
  const double t1 = now_s();
  const vgpusim::RunRecord rec = vgpusim::simulate(sc);
  const double t2 = now_s();
  // Every iteration launches the same number of kernels at least once: count them from the events.
  const double rate = static_cast<double>(rec.events) / (t2 - t1);
  std::printf("llm: Llama-3-8B on one H100 serving %s (%lld requests), exact\n", trace.c_str(),
              rec.tenants[0].units);
  std::printf("  load %.3f s, simulate %.3f s for %.0f s of trace (target < 5 s: %s), %llu events, %.3g events/s\n",
              t1 - t0, t2 - t1, rec.end, t2 - t1 < 5.0 ? "met" : "NOT MET",
              static_cast<unsigned long long>(rec.events), rate);
  double iterations = 0;
  for (const auto& [name, total] : rec.tenants[0].counts)
    if (name == "iterations") iterations = total;
  std::printf("  %.0f server iterations: %.3g iterations/s of simulation\n", iterations, iterations / (t2 - t1));
  const double bare = bare_heap_events_per_s(rec.events);
  std::printf("  bare std::priority_queue %.3g events/s: the simulation is %.1fx slower per event\n", bare, bare / rate);
  return 0;
}
