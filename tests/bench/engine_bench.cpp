// Engine benchmark: (a) the processor-sharing reference workload of docs/sources/simgrid-3.32.md through our engine and through
// SimGrid, same answer, speed ratio; (b) our events/s against a bare std::priority_queue loop of the same count.
// Run: build/tests/engine_bench [--skip-simgrid] [--enforce]. Ratios, not times, are the result (noisy machines).
#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "models/sharing/mode_registry.hpp"
#include "tests/bench/bench_util.hpp"
#include "sim/core/engine.hpp"

namespace {

constexpr int kActors = 1000, kExecs = 1000, kHosts = 8;
constexpr double kSpeed = 1e9;           // flop/s per host
constexpr double kReferenceEnd = 125274.797023;  // s, from docs/sources/simgrid-3.32.md

using vgpusim::bench::now_s;

// Actor i runs on host i % 8; its exec sizes come from mt19937_64 seeded with i.
struct ActorSizes {
  std::mt19937_64 gen;
  std::uniform_real_distribution<double> dist{0.5e9, 1.5e9};
  explicit ActorSizes(int i) : gen(static_cast<uint64_t>(i)) {}
  double next() { return dist(gen); }
};

// One context per host; its streams are the host's actors, sharing the host equally (processor sharing).
struct HostDriver : vgpusim::EngineClient {
  vgpusim::Engine* engine = nullptr;
  vgpusim::Engine::ContextIndex ctx = 0;
  std::vector<ActorSizes>* sizes = nullptr;
  std::vector<int>* left = nullptr;
  void on_activity_done(uint64_t actor) override {
    if (--(*left)[actor] > 0) engine->start_activity(ctx, (*sizes)[actor].next() / kSpeed, actor);
  }
  void on_timer(uint64_t) override {}
};

struct EngineRun {
  double end, wall;
  uint64_t events;
};

EngineRun run_ours() {
  const double t0 = now_s();
  vgpusim::Engine engine;
  std::vector<ActorSizes> sizes;
  std::vector<int> left(kActors, kExecs);
  for (int i = 0; i < kActors; ++i) sizes.emplace_back(i);
  std::vector<HostDriver> hosts(kHosts);
  for (int h = 0; h < kHosts; ++h) {
    hosts[h].engine = &engine;
    hosts[h].sizes = &sizes;
    hosts[h].left = &left;
    const auto gpu = engine.add_gpu(vgpusim::make_bare_metal_model());
    hosts[h].ctx = engine.add_context(gpu, engine.add_client(&hosts[h]));
  }
  for (int i = 0; i < kActors; ++i) engine.start_activity(hosts[i % kHosts].ctx, sizes[i].next() / kSpeed, i);
  engine.run();
  return {engine.now(), now_s() - t0, engine.events_processed()};
}

EngineRun run_simgrid(int argc, char** argv) {
  namespace sg4 = simgrid::s4u;
  const double t0 = now_s();
  xbt_log_control_set("root.thresh:critical");
  sg4::Engine e(&argc, argv);
  auto* zone = sg4::create_full_zone("zone");
  std::vector<sg4::Host*> hosts;
  for (int h = 0; h < kHosts; ++h) hosts.push_back(zone->create_host("host" + std::to_string(h), kSpeed)->seal());
  zone->seal();
  for (int i = 0; i < kActors; ++i)
    sg4::Actor::create("actor" + std::to_string(i), hosts[i % kHosts], [i] {
      ActorSizes sizes(i);
      for (int k = 0; k < kExecs; ++k) sg4::this_actor::execute(sizes.next());
    });
  e.run();
  return {sg4::Engine::get_clock(), now_s() - t0, 0};
}

// The same number of events through a bare heap (hold model: each pop schedules one later event).
double bare_queue_events_per_s(uint64_t events) { return vgpusim::bench::bare_heap_events_per_s(events, kHosts); }

}  // namespace

int main(int argc, char** argv) {
  bool skip_simgrid = false, enforce = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--skip-simgrid")) skip_simgrid = true;
    if (!std::strcmp(argv[i], "--enforce")) enforce = true;
  }
  // The exact answer: under processor sharing a host is busy until its last flop, so each host ends at
  // (its total work) / speed and the simulation at the largest of those.
  std::vector<double> work(kHosts, 0);
  for (int i = 0; i < kActors; ++i) {
    ActorSizes s(i);
    for (int k = 0; k < kExecs; ++k) work[i % kHosts] += s.next();
  }
  double expected = 0;
  for (double w : work) expected = std::max(expected, w / kSpeed);

  std::printf("(a) processor-sharing reference: %d actors x %d execs on %d hosts of %.0e flop/s\n", kActors, kExecs,
              kHosts, kSpeed);
  std::printf("    reference end (docs/sources/simgrid-3.32.md) %.6f s; work/speed of the busiest host %.6f s\n", kReferenceEnd,
              expected);
  const EngineRun ours = run_ours();
  std::printf("    vgpusim engine: end %.6f s, %.3f s wall, %llu events\n", ours.end, ours.wall,
              static_cast<unsigned long long>(ours.events));
  bool ok = std::fabs(ours.end - kReferenceEnd) <= 1e-9 * kReferenceEnd;
  std::printf("    vgpusim matches the reference to 1e-9 relative: %s (difference %.3g)\n", ok ? "yes" : "NO",
              (ours.end - kReferenceEnd) / kReferenceEnd);
  bool targets = true;
  if (!skip_simgrid) {
    const EngineRun sg = run_simgrid(argc, argv);
    const bool sg_ok = std::fabs(sg.end - kReferenceEnd) <= 1e-9 * kReferenceEnd;
    const double ratio = sg.wall / ours.wall;
    std::printf("    SimGrid 3.32:   end %.6f s, %.3f s wall; matches: %s\n", sg.end, sg.wall, sg_ok ? "yes" : "NO");
    std::printf("    speed ratio SimGrid / vgpusim = %.1fx (target >= 50x): %s\n", ratio, ratio >= 50 ? "met" : "NOT MET");
    ok = ok && sg_ok;
    targets = targets && ratio >= 50;
  }
  const double ours_rate = static_cast<double>(ours.events) / ours.wall;
  const double bare_rate = bare_queue_events_per_s(ours.events);
  const double slower = bare_rate / ours_rate;
  std::printf("(b) events/s: vgpusim %.3g, bare std::priority_queue %.3g; vgpusim is %.2fx slower (target <= 10x): %s\n",
              ours_rate, bare_rate, slower, slower <= 10 ? "met" : "NOT MET");
  targets = targets && slower <= 10;
  if (!ok) return 1;
  return enforce && !targets ? 3 : 0;
}
