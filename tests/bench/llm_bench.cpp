// LLM serving benchmark: one hour of the Azure conversation trace (19,366 requests) served by one Llama-3-8B server
// on one H100, exact fidelity. Target: under 5 s of simulation; prints the simulator's iterations and events per
// second and the ratio to a bare heap loop of the same event count (measured in the same run).
// Run: build/tests/llm_bench [TRACE] (default: scenarios/traces/azure-llm/splitwise_conv.csv).
#include <cstdio>
#include <filesystem>
#include <string>

#include "sim/io/gpu_catalog.hpp"
#include "tests/bench/bench_util.hpp"
#include "sim/run/simulation.hpp"
#include "sim/scenario/loader.hpp"

using vgpusim::bench::bare_heap_events_per_s;
using vgpusim::bench::now_s;

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
