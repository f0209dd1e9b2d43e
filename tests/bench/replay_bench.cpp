// Replay benchmark: the A100 production Kineto trace (8568 kernels) as 8 tenants time-sliced on one H100, exact
// fidelity. Target: under 1 s of simulation; prints events/s and the ratio to a bare heap loop of the same count.
// Run: build/tests/replay_bench [TRACE] (default: scenarios/traces/kineto/a100_rank3_control.json.gz).
#include <cstdio>
#include <string>

#include "tests/bench/bench_util.hpp"

using namespace vgpusim::bench;

int main(int argc, char** argv) {
  const std::string trace =
      trace_argument(argc, argv, std::string(VGPUSIM_KINETO_TRACES) + "/a100_rank3_control.json.gz", "replay");
  if (trace.empty()) return 0;
  std::string text =
      "version: 1\nname: replay bench\nfidelity: exact\ngpus: [{id: g0, model: H100-SXM}]\n"
      "sharing: {g0: {mode: timeslice}}\ntenants:\n";
  for (int i = 0; i < 8; ++i)
    text += "  - {name: t" + std::to_string(i) + ", on: g0, workload: {trace: {path: \"" + trace +
            "\", source: A100-40GB}}}\n";
  const TimedRun run = load_and_simulate(text);
  const double rate = run.events_per_s();
  std::printf("replay: a100_rank3_control (8568 kernels) x 8 tenants, timeslice on H100, exact\n");
  std::printf("  load %.3f s, simulate %.3f s (target < 1 s: %s), %llu events, %.3g events/s, simulated %.3f s\n",
              run.load_s, run.simulate_s, run.simulate_s < 1.0 ? "met" : "NOT MET",
              static_cast<unsigned long long>(run.rec.events), rate, run.rec.end);
  const double bare = bare_heap_events_per_s(run.rec.events);
  std::printf("  bare std::priority_queue %.3g events/s: the replay is %.1fx slower per event\n", bare, bare / rate);
  return 0;
}
