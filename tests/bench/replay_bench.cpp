// Replay benchmark: the A100 production Kineto trace (8568 kernels) as 8 tenants time-sliced on one H100, exact
// fidelity. Target: under 1 s of simulation; prints events/s and the ratio to a bare heap loop of the same count.
// Run: build/tests/replay_bench [TRACE] (default: scenarios/traces/kineto/a100_rank3_control.json.gz).
#include <cstdio>
#include <filesystem>
#include <string>

#include "sim/io/gpu_catalog.hpp"
#include "tests/bench/bench_util.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/run/simulation.hpp"

using vgpusim::bench::bare_heap_events_per_s;
using vgpusim::bench::now_s;

int main(int argc, char** argv) {
  const std::string trace = argc > 1 ? argv[1] : std::string(VGPUSIM_KINETO_TRACES) + "/a100_rank3_control.json.gz";
  if (!std::filesystem::exists(trace)) {
    std::printf("replay benchmark skipped: %s not found\n", trace.c_str());
    return 0;
  }
  std::string text =
      "version: 1\nname: replay bench\nfidelity: exact\ngpus: [{id: g0, model: H100-SXM}]\n"
      "sharing: {g0: {mode: timeslice}}\ntenants:\n";
  for (int i = 0; i < 8; ++i)
    text += "  - {name: t" + std::to_string(i) + ", on: g0, workload: {trace: {path: \"" + trace +
            "\", source: A100-40GB}}}\n";
  const double t0 = now_s();
  const vgpusim::Scenario sc = vgpusim::load_scenario_text(text, "bench.yaml", vgpusim::builtin_catalog());
  const double t1 = now_s();
  const vgpusim::RunRecord rec = vgpusim::simulate(sc);
  const double t2 = now_s();
  const double rate = static_cast<double>(rec.events) / (t2 - t1);
  std::printf("replay: a100_rank3_control (8568 kernels) x 8 tenants, timeslice on H100, exact\n");
  std::printf("  load %.3f s, simulate %.3f s (target < 1 s: %s), %llu events, %.3g events/s, simulated %.3f s\n",
              t1 - t0, t2 - t1, t2 - t1 < 1.0 ? "met" : "NOT MET", static_cast<unsigned long long>(rec.events), rate,
              rec.end);
  const double bare = bare_heap_events_per_s(rec.events);
  std::printf("  bare std::priority_queue %.3g events/s: the replay is %.1fx slower per event\n", bare, bare / rate);
  return 0;
}
