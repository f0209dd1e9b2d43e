// Engine invariants and exact answers: processor sharing, timers, work conservation, monotonic time, capacity
// checks, determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/core/rng.hpp"
#include "sim/core/engine.hpp"

using namespace vgpusim;

namespace {

// Equal share among contexts that have work.
class FairShare final : public SharingModel {
 public:
  void decide(double, std::span<const ContextLoad> c, ShareDecision& out) override {
    int busy = 0;
    for (const auto& l : c) busy += l.active > 0;
    for (size_t i = 0; i < c.size(); ++i) out.rate[i] = c[i].active > 0 ? 1.0 / busy : 0.0;
  }
};

class Greedy final : public SharingModel {  // broken on purpose: faster than solo speed
 public:
  void decide(double, std::span<const ContextLoad> c, ShareDecision& out) override {
    for (size_t i = 0; i < c.size(); ++i) out.rate[i] = 1.5;
  }
};

struct Recorder : EngineClient {
  Engine* engine = nullptr;
  std::vector<std::pair<uint64_t, double>> done;
  std::vector<std::pair<uint64_t, double>> timers;
  void on_activity_done(uint64_t tag) override { done.push_back({tag, engine->now()}); }
  void on_timer(uint64_t tag) override { timers.push_back({tag, engine->now()}); }
};

}  // namespace

TEST(Engine, ProcessorSharingBetweenContexts) {
  Engine e;
  Recorder a, b;
  a.engine = b.engine = &e;
  const auto g = e.add_gpu(std::make_unique<FairShare>());
  const auto ca = e.add_context(g, e.add_client(&a));
  const auto cb = e.add_context(g, e.add_client(&b));
  e.start_activity(ca, 1.0, 1);
  e.start_activity(cb, 2.0, 2);
  e.run();
  ASSERT_EQ(a.done.size(), 1u);
  ASSERT_EQ(b.done.size(), 1u);
  EXPECT_DOUBLE_EQ(a.done[0].second, 2.0);  // both at 1/2 until a is done at t=2
  EXPECT_DOUBLE_EQ(b.done[0].second, 3.0);  // b has 1 s left, alone
  EXPECT_DOUBLE_EQ(e.gpu_stats(g).delivered, 3.0);
  EXPECT_DOUBLE_EQ(e.gpu_stats(g).busy_time, 3.0);
}

TEST(Engine, StreamsOfOneContextShareItsRate) {
  Engine e;
  Recorder a;
  a.engine = &e;
  const auto g = e.add_gpu(std::make_unique<FairShare>());
  const auto c = e.add_context(g, e.add_client(&a));
  e.start_activity(c, 1.0, 1);
  e.start_activity(c, 1.0, 2);
  e.start_activity(c, 3.0, 3);
  e.run();
  ASSERT_EQ(a.done.size(), 3u);
  EXPECT_DOUBLE_EQ(a.done[0].second, 3.0);  // three at 1/3 each
  EXPECT_DOUBLE_EQ(a.done[1].second, 3.0);
  EXPECT_DOUBLE_EQ(a.done[2].second, 5.0);
  EXPECT_EQ(a.done[0].first, 1u);  // ties complete in start order
  EXPECT_EQ(a.done[1].first, 2u);
}

TEST(Engine, TimersFireInOrderAndRunStopsAtUntil) {
  Engine e;
  Recorder a;
  a.engine = &e;
  const auto client = e.add_client(&a);
  e.set_timer(client, 2.0, 20);
  e.set_timer(client, 1.0, 10);
  e.set_timer(client, 1.0, 11);
  e.set_timer(client, 5.0, 50);
  e.run(3.0);
  ASSERT_EQ(a.timers.size(), 3u);
  EXPECT_EQ(a.timers[0].first, 10u);
  EXPECT_EQ(a.timers[1].first, 11u);  // same time: scheduling order
  EXPECT_EQ(a.timers[2].first, 20u);
  EXPECT_DOUBLE_EQ(e.now(), 3.0);
  e.run();
  EXPECT_EQ(a.timers.back().first, 50u);
}

TEST(Engine, RejectsModelsThatExceedCapacity) {
  Engine e;
  Recorder a, b;
  a.engine = b.engine = &e;
  const auto g = e.add_gpu(std::make_unique<Greedy>());
  e.start_activity(e.add_context(g, e.add_client(&a)), 1.0, 1);
  e.start_activity(e.add_context(g, e.add_client(&b)), 1.0, 1);
  EXPECT_THROW(e.run(), std::logic_error);
}

TEST(Engine, RejectsNegativeWorkAndPastTimers) {
  Engine e;
  Recorder a;
  a.engine = &e;
  const auto g = e.add_gpu(std::make_unique<FairShare>());
  const auto client = e.add_client(&a);
  const auto c = e.add_context(g, client);
  EXPECT_THROW(e.start_activity(c, -1.0, 0), std::invalid_argument);
  e.set_timer(client, 1.0, 0);
  e.run();
  EXPECT_THROW(e.set_timer(client, 0.5, 0), std::invalid_argument);
}

namespace {
// A client that keeps `streams` activities of random size in flight until `count` have completed, checking that
// time never runs backwards.
struct RandomLoad : EngineClient {
  Engine* engine;
  Engine::ContextIndex ctx{};
  Rng rng;
  int left;
  double last_now = 0;
  double started_work = 0, completed_work = 0;
  std::vector<double> size_of;
  RandomLoad(Engine* e, uint64_t seed, int count) : engine(e), rng(seed), left(count) {}
  void launch() {
    const double w = 0.001 + rng.uniform();
    size_of.push_back(w);
    started_work += w;
    engine->start_activity(ctx, w, size_of.size() - 1);
  }
  void on_activity_done(uint64_t tag) override {
    EXPECT_GE(engine->now(), last_now);
    last_now = engine->now();
    completed_work += size_of[tag];
    if (--left > 0) {
      if (rng.uniform() < 0.3)
        engine->set_timer(0, engine->now() + rng.uniform() * 0.1, 0);  // client 0 below is a no-op timer sink
      launch();
    }
  }
  void on_timer(uint64_t) override {}
};

std::vector<double> run_random(uint64_t seed) {
  Engine e;
  Recorder sink;
  sink.engine = &e;
  e.add_client(&sink);
  std::vector<std::unique_ptr<RandomLoad>> loads;
  std::vector<Engine::GpuIndex> gpus;
  for (int g = 0; g < 3; ++g) gpus.push_back(e.add_gpu(std::make_unique<FairShare>()));
  for (int i = 0; i < 12; ++i) {
    loads.push_back(std::make_unique<RandomLoad>(&e, seed + i, 200));
    loads.back()->ctx = e.add_context(gpus[i % 3], e.add_client(loads.back().get()));
    for (int s = 0; s < 1 + i % 3; ++s) loads.back()->launch();
  }
  e.run();
  std::vector<double> out;
  double delivered = 0, work_done = 0;
  for (auto g : gpus) delivered += e.gpu_stats(g).delivered;
  for (auto& l : loads) {
    EXPECT_NEAR(l->completed_work, l->started_work, 1e-9 * l->started_work);
    EXPECT_NEAR(e.context_work_done(l->ctx), l->completed_work, 1e-6);
    work_done += l->completed_work;
    out.push_back(l->last_now);
  }
  EXPECT_NEAR(delivered, work_done, 1e-6 * work_done);  // work conservation
  for (auto g : gpus) EXPECT_LE(e.gpu_stats(g).delivered, e.now() * (1 + 1e-12));  // never above capacity
  return out;
}
}  // namespace

TEST(Engine, WorkIsConservedAndRunsAreDeterministic) {
  const auto a = run_random(1234);
  const auto b = run_random(1234);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]);  // bit-identical
}

TEST(Engine, UtilizationSeriesIntegratesDeliveredWork) {
  Engine e(0.5);
  Recorder a;
  a.engine = &e;
  const auto g = e.add_gpu(std::make_unique<FairShare>());
  const auto c = e.add_context(g, e.add_client(&a));
  e.start_activity(c, 1.25, 1);
  e.run(2.0);
  const auto& s = e.gpu_stats(g).series;
  ASSERT_EQ(s.work.size(), 3u);
  EXPECT_DOUBLE_EQ(s.work[0], 0.5);
  EXPECT_DOUBLE_EQ(s.work[1], 0.5);
  EXPECT_DOUBLE_EQ(s.work[2], 0.25);
}

TEST(Engine, IdleHoldTakesItsShareButDoesNoWork) {
  // a holds for 1 ms of solo time while b has 1 ms of work: under fair sharing both progress at 1/2, so both end
  // at 2 ms; only b's work counts as delivered, busy time or context work.
  Engine e;
  Recorder ra, rb;
  ra.engine = rb.engine = &e;
  const auto g = e.add_gpu(std::make_unique<FairShare>());
  const auto ca = e.add_context(g, e.add_client(&ra));
  const auto cb = e.add_context(g, e.add_client(&rb));
  EXPECT_FALSE(e.others_active(ca));
  e.start_activity(cb, 1e-3, 2);
  EXPECT_TRUE(e.others_active(ca));
  EXPECT_FALSE(e.others_active(cb));
  e.start_hold(ca, 1e-3, 1);
  EXPECT_TRUE(e.others_active(cb));  // a hold counts as the context being there
  e.run();
  ASSERT_EQ(ra.done.size(), 1u);
  ASSERT_EQ(rb.done.size(), 1u);
  EXPECT_NEAR(ra.done[0].second, 2e-3, 1e-12);
  EXPECT_NEAR(rb.done[0].second, 2e-3, 1e-12);
  EXPECT_NEAR(e.gpu_stats(g).delivered, 1e-3, 1e-12);
  EXPECT_NEAR(e.gpu_stats(g).busy_time, 2e-3, 1e-12);
  EXPECT_NEAR(e.context_work_done(ca), 0.0, 1e-15);
  EXPECT_NEAR(e.context_work_done(cb), 1e-3, 1e-12);
  // Both ended at this instant: each still sees the other (completions of one instant are delivered together).
  EXPECT_TRUE(e.others_active(ca));
  e.run(3e-3);
  EXPECT_FALSE(e.others_active(ca));
}

TEST(Engine, HoldsAreNotBusyTimeButShareTheContextRate) {
  Engine e;
  Recorder r;
  r.engine = &e;
  const auto g = e.add_gpu(std::make_unique<FairShare>());
  const auto c = e.add_context(g, e.add_client(&r));
  e.start_hold(c, 1e-3, 1);  // alone: 1 ms at full rate, not busy, nothing delivered
  e.run();
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_NEAR(r.done[0].second, 1e-3, 1e-12);
  EXPECT_EQ(e.gpu_stats(g).busy_time, 0.0);
  EXPECT_EQ(e.gpu_stats(g).delivered, 0.0);
  e.start_hold(c, 1e-3, 2);
  e.start_activity(c, 1e-3, 3);  // the two members share the context's rate: both end 2 ms later
  e.run();
  ASSERT_EQ(r.done.size(), 3u);
  EXPECT_NEAR(r.done[2].second, 3e-3, 1e-12);
  EXPECT_NEAR(e.gpu_stats(g).delivered, 1e-3, 1e-12);
  EXPECT_NEAR(e.gpu_stats(g).busy_time, 2e-3, 1e-12);
}
