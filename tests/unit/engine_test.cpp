// Engine invariants and exact answers: processor sharing, timers, work conservation, monotonic time, capacity
// checks, determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/core/rng.hpp"
#include "sim/core/engine.hpp"

namespace unit_engine {

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

namespace {

// Fair sharing whose contexts keep an idle hold of `hold` solo-seconds (or the gap to their next launch, when
// shorter and `up_to_gap`) when they run out of work while another context is active.
class FairShareHolding final : public SharingModel {
 public:
  explicit FairShareHolding(double hold, bool up_to_gap = false) : hold_(hold), up_to_gap_(up_to_gap) {}
  void decide(double now, std::span<const ContextLoad> c, ShareDecision& out) override { fair_.decide(now, c, out); }
  bool keeps_idle_grace() const override { return true; }
  double idle_hold(double gap) const override { return up_to_gap_ ? std::min(gap, hold_) : hold_; }

 private:
  FairShare fair_;
  double hold_;
  bool up_to_gap_;
};

// Records completions and served holds; launches `work` when a timer tagged `launch_tag` fires.
struct HoldRecorder : Recorder {
  Engine::ContextIndex context = 0;
  std::vector<double> holds_served;
  uint64_t launch_tag = 99;
  double work = 1e-3;
  void on_idle_hold_served() override { holds_served.push_back(engine->now()); }
  void on_timer(uint64_t tag) override {
    Recorder::on_timer(tag);
    if (tag == launch_tag) engine->start_activity(context, work, tag);
  }
};

// Two recorded clients, a and b, with one context each on one GPU whose model holds 1 ms (up to the gap when
// `up_to_gap`).
struct HoldingPair {
  explicit HoldingPair(bool up_to_gap = false) {
    a.engine = b.engine = &e;
    g = e.add_gpu(std::make_unique<FairShareHolding>(1e-3, up_to_gap));
    client_a = e.add_client(&a);
    a.context = e.add_context(g, client_a);
    b.context = e.add_context(g, e.add_client(&b));
  }
  Engine e;
  HoldRecorder a, b;
  Engine::GpuIndex g = 0;
  Engine::ClientIndex client_a = 0;
};

}  // namespace

TEST(Engine, IdleHoldTakesItsShareButDoesNoWork) {
  // a (1 ms) and b (3 ms) share fairly: a is done at 2 ms and, b being active, holds 1 ms solo at 1/2: served at
  // 4 ms. b has 1 ms left then, alone: done at 5 ms. The hold is no work: not delivered, not a's work.
  HoldingPair pair;
  Engine& e = pair.e;
  HoldRecorder &ra = pair.a, &rb = pair.b;
  const auto g = pair.g;
  e.start_activity(ra.context, 1e-3, 1);
  e.start_activity(rb.context, 3e-3, 2);
  e.run();
  ASSERT_EQ(ra.done.size(), 1u);
  ASSERT_EQ(rb.done.size(), 1u);
  EXPECT_NEAR(ra.done[0].second, 2e-3, 1e-12);
  ASSERT_EQ(ra.holds_served.size(), 1u);
  EXPECT_NEAR(ra.holds_served[0], 4e-3, 1e-12);
  EXPECT_NEAR(rb.done[0].second, 5e-3, 1e-12);
  EXPECT_TRUE(rb.holds_served.empty());  // b ran out of work alone
  EXPECT_NEAR(e.gpu_stats(g).delivered, 4e-3, 1e-12);
  EXPECT_NEAR(e.gpu_stats(g).busy_time, 5e-3, 1e-12);
  EXPECT_NEAR(e.context_work_done(ra.context), 1e-3, 1e-12);
}

TEST(Engine, ActivitiesStartedDuringAnIdleHoldWaitForIt) {
  // As above, a's hold runs from 2 to 4 ms; a launches 1 ms at 2.5 ms, which waits for the hold: from 4 ms a and b
  // (1 ms left) share fairly and both end at 6 ms. Both ran out of work at the same instant, so each sees the other
  // as active and holds 1 ms: both served at 8 ms.
  HoldingPair pair;
  Engine& e = pair.e;
  HoldRecorder &ra = pair.a, &rb = pair.b;
  const auto g = pair.g;
  const auto client_a = pair.client_a;
  e.start_activity(ra.context, 1e-3, 1);
  e.start_activity(rb.context, 3e-3, 2);
  e.set_launch_timer(client_a, 2.5e-3, ra.launch_tag);
  e.run();
  ASSERT_EQ(ra.done.size(), 2u);
  ASSERT_EQ(rb.done.size(), 1u);
  EXPECT_NEAR(ra.done[1].second, 6e-3, 1e-12);
  EXPECT_NEAR(rb.done[0].second, 6e-3, 1e-12);
  ASSERT_EQ(ra.holds_served.size(), 2u);
  EXPECT_NEAR(ra.holds_served[0], 4e-3, 1e-12);
  EXPECT_NEAR(ra.holds_served[1], 8e-3, 1e-12);
  ASSERT_EQ(rb.holds_served.size(), 1u);
  EXPECT_NEAR(rb.holds_served[0], 8e-3, 1e-12);
  EXPECT_NEAR(e.gpu_stats(g).delivered, 5e-3, 1e-12);
  EXPECT_NEAR(e.gpu_stats(g).busy_time, 6e-3, 1e-12);  // 4 to 6 ms b works; holds are not busy time
}

TEST(Engine, ActivitiesWaitingForAnIdleHoldCanBeTakenBack) {
  // As above: a holds from 2 to 4 ms. Its activity started at 2.5 ms waits (start_activity says so); taken back, it
  // never starts, and the hold's end starts nothing.
  HoldingPair pair;
  Engine& e = pair.e;
  HoldRecorder &ra = pair.a, &rb = pair.b;
  e.start_activity(ra.context, 1e-3, 1);
  e.start_activity(rb.context, 3e-3, 2);
  e.run(2.5e-3);
  EXPECT_FALSE(e.start_activity(ra.context, 1e-3, 7));
  EXPECT_EQ(e.take_deferred(ra.context), std::vector<uint64_t>{7});
  EXPECT_TRUE(e.take_deferred(ra.context).empty());
  e.run();
  ASSERT_EQ(ra.holds_served.size(), 1u);
  EXPECT_NEAR(ra.holds_served[0], 4e-3, 1e-12);
  ASSERT_EQ(ra.done.size(), 1u);  // only its first activity
  EXPECT_NEAR(rb.done[0].second, 5e-3, 1e-12);
}

TEST(Engine, AnIdleHoldLastsUntilTheNextLaunchTimer) {
  // The model holds the gap to the next launch, at most 1 ms. a (1 ms) ends at 2 ms; its earliest launch timer is
  // at 2.3 ms (a plain timer at 2.1 ms does not count): a 0.3 ms hold at 1/2, served at 2.6 ms.
  HoldingPair pair(true);
  Engine& e = pair.e;
  HoldRecorder &ra = pair.a, &rb = pair.b;
  const auto client_a = pair.client_a;
  ra.launch_tag = 7;  // the launch timer starts nothing here
  e.start_activity(ra.context, 1e-3, 1);
  e.start_activity(rb.context, 10e-3, 2);
  e.set_timer(client_a, 2.1e-3, 5);
  e.set_launch_timer(client_a, 2.3e-3, 6);
  e.run();
  ASSERT_EQ(ra.holds_served.size(), 1u);
  EXPECT_NEAR(ra.holds_served[0], 2.6e-3, 1e-12);
}

TEST(Engine, NoIdleHoldAloneOrWhenTheClientTurnsThemOff) {
  HoldingPair pair;
  Engine& e = pair.e;
  HoldRecorder &ra = pair.a, &rb = pair.b;
  e.start_activity(ra.context, 1e-3, 1);  // alone: no hold
  e.run();
  EXPECT_TRUE(ra.holds_served.empty());
  e.allow_idle_holds(ra.context, false);  // e.g. its workload is done
  e.start_activity(ra.context, 1e-3, 2);
  e.start_activity(rb.context, 3e-3, 3);
  e.run();
  EXPECT_TRUE(ra.holds_served.empty());
  ASSERT_EQ(rb.done.size(), 1u);
  EXPECT_NEAR(rb.done[0].second, 1e-3 + 2e-3 + 2e-3, 1e-12);  // shared to 3 ms, then alone
}

}  // namespace unit_engine
