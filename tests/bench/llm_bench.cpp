// LLM serving benchmark: one hour of the Azure conversation trace (19,366 requests) served by one Llama-3-8B server
// on one H100, exact fidelity. Target: under 5 s of simulation; prints the simulator's iterations and events per
// second and the ratio to a bare heap loop of the same event count (measured in the same run).
// Run: build/tests/llm_bench [TRACE] (default: scenarios/traces/azure-llm/splitwise_conv.csv).
#include <cstdio>
#include <string>

#include "tests/bench/bench_util.hpp"

using namespace vgpusim::bench;

int main(int argc, char** argv) {
  const std::string trace =
      trace_argument(argc, argv, std::string(VGPUSIM_LLM_TRACES) + "/splitwise_conv.csv", "llm");
  if (trace.empty()) return 0;
  const std::string text =
      "version: 1\nname: llm bench\nfidelity: exact\ngpus: [{id: g0, model: H100-SXM}]\n"
      "sharing: {g0: {mode: passthrough}}\ntenants:\n"
      "  - {name: chat, on: g0, workload: {llm: {model: Llama-3-8B, trace: \"" + trace + "\"}}}\n";
  const TimedRun run = load_and_simulate(text);
  const vgpusim::RunRecord& rec = run.rec;
  const double rate = run.events_per_s();
  std::printf("llm: Llama-3-8B on one H100 serving %s (%lld requests), exact\n", trace.c_str(),
              rec.tenants[0].units);
  std::printf("  load %.3f s, simulate %.3f s for %.0f s of trace (target < 5 s: %s), %llu events, %.3g events/s\n",
              run.load_s, run.simulate_s, rec.end, run.simulate_s < 5.0 ? "met" : "NOT MET",
              static_cast<unsigned long long>(rec.events), rate);
  double iterations = 0;
  for (const auto& [name, total] : rec.tenants[0].counts)
    if (name == "iterations") iterations = total;
  std::printf("  %.0f server iterations: %.3g iterations/s of simulation\n", iterations, iterations / run.simulate_s);
  const double bare = bare_heap_events_per_s(rec.events);
  std::printf("  bare std::priority_queue %.3g events/s: the simulation is %.1fx slower per event\n", bare, bare / rate);
  return 0;
}
