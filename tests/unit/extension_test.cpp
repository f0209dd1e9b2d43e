// Extending vgpusim from one file: a toy sharing mode, a toy workload kind and a toy output format, each declared and
// registered here alone, then used through a scenario as a user would (docs/architecture.md, "Where to add").
#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/sharing/mode_registry.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/report/listings.hpp"
#include "sim/report/run_command.hpp"
#include "sim/report/run_formats.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/scenario/loader_state.hpp"
#include "sim/scenario/request_keys.hpp"
#include "sim/scenario/workload_kind.hpp"
#include "tests/unit/scenario_helpers.hpp"

namespace vgpusim::unit_extension {
namespace {

// ---- A toy sharing mode: every context with work gets the same fixed share of the GPU. ----

class FixedShare final : public SharingModel {
 public:
  explicit FixedShare(double share) : share_(share) {}
  void decide(double, std::span<const ContextLoad> contexts, ShareDecision& out) override {
    for (size_t i = 0; i < contexts.size(); ++i) out.rate[i] = contexts[i].active > 0 ? share_ : 0.0;
  }

 private:
  double share_;
};

// Its parameters as a typed struct, each member bound to its declaration.
struct ToyShareParams {
  double share;
  bool full_speed;
};

const ParamTable<ToyShareParams>& toy_params() {
  static const ParamTable<ToyShareParams> table =
      ParamTable<ToyShareParams>()
          .add(&ToyShareParams::share,
               number_param("toy_share", "share", units::Dim::Ratio, 0.5, 0.01, 1.0, "each context's share", "a test"))
          .add(&ToyShareParams::full_speed,
               flag_param("toy_share", "full_speed", false, "true: every context at full speed instead", "a test"));
  return table;
}

SharingModeInfo toy_mode() {
  SharingModeInfo info;
  info.name = "toy_share";
  info.description = "every context with work at a fixed share of the GPU";
  info.citation = "tests/unit/extension_test.cpp";
  info.params = toy_params().specs();
  info.create = [](const ModelSetup& s) -> std::unique_ptr<SharingModel> {
    const ToyShareParams p = toy_params().read(s.params);
    return std::make_unique<FixedShare>(p.full_speed ? 1.0 : p.share);
  };
  return info;
}

// ---- A toy workload kind: `count` bursts, each `kernels` kernels launched together. ----

class BurstsPlay final : public Workload {
 public:
  BurstsPlay(long long count, int kernels, KernelSpec kernel) : left_(count), kernels_(kernels), kernel_(kernel) {}
  void start(WorkloadPort& port) override { burst(port); }
  void on_kernel_done(WorkloadPort& port, uint64_t) override {
    if (--running_ > 0) return;
    port.unit_done(started_);
    burst(port);
  }
  void on_timer(WorkloadPort&, uint64_t) override {}

 private:
  void burst(WorkloadPort& port) {
    if (left_-- == 0) {
      port.finished();
      return;
    }
    started_ = port.now();
    running_ = kernels_;
    for (int k = 0; k < kernels_; ++k) port.launch(kernel_, static_cast<uint64_t>(k));
  }
  long long left_;
  int kernels_;
  int running_ = 0;
  double started_ = 0;
  KernelSpec kernel_;
};

struct BurstsWorkload final : WorkloadSpec {
  long long count = 1;
  int kernels = 1;
  KernelSpec kernel;
  std::string kind() const override { return "bursts"; }
  std::string unit() const override { return "bursts"; }
  bool bounded() const override { return true; }
  std::unique_ptr<Workload> play(Fidelity, uint64_t) const override {
    return std::make_unique<BurstsPlay>(count, kernels, kernel);
  }
};

WorkloadKindInfo toy_kind() {
  WorkloadKindInfo kind;
  kind.name = "bursts";
  kind.help = "bursts of kernels launched together";
  kind.sections = {{"workload.bursts",
                    "Bursts of kernels launched together.",
                    {{"count", "integer", true, "", "bursts"},
                     {"kernels", "integer", false, "1", "kernels per burst"},
                     {"kernel", "kernel", true, "", "each kernel's work"}}}};
  kind.read = [](Loader& loader, const MapReader& r, const ScenarioGpu& gpu) -> WorkloadRef {
    auto w = std::make_shared<BurstsWorkload>();
    w->count = r.integer("count", 1, 1000);
    w->kernels = static_cast<int>(r.integer("kernels", 1, 100));  // its default, "1", is its KeySpec's
    w->kernel = loader.kernel(r.node("kernel"), r.child_path("kernel"), "fp32", gpu);
    return w;
  };
  return kind;
}

// ---- A toy request-driven kind: each request one kernel, served in arrival order. Its arrivals (open or closed
// loop), their keys and its SLO keys are the shared request source's: no arrival code of its own. ----

class QueriesPlay final : public Workload {
 public:
  QueriesPlay(const RequestArrivals& arrivals, KernelSpec kernel, uint64_t seed)
      : rng_(seed), source_(arrivals, rng_), kernel_(kernel) {}
  void start(WorkloadPort& port) override {
    source_.start(port);
    done_if_idle(port);
  }
  void on_timer(WorkloadPort& port, uint64_t tag) override {
    if (!RequestSource::owns(tag)) return;
    source_.on_timer(port, tag, [&](const Arrival& a) {
      queue_.push_back({port.now(), a.client});
      if (queue_.size() == 1) port.launch(kernel_, 0);
    });
  }
  void on_kernel_done(WorkloadPort& port, uint64_t) override {
    const auto [arrived, client] = queue_.front();
    queue_.pop_front();
    port.unit_done(arrived);
    source_.answered(port, client);
    if (!queue_.empty()) port.launch(kernel_, 0);
    done_if_idle(port);
  }

 private:
  void done_if_idle(WorkloadPort& port) {
    if (source_.done() && queue_.empty()) port.finished();
  }
  Rng rng_;
  RequestSource source_;
  KernelSpec kernel_;
  std::deque<std::pair<double, long long>> queue_;  // arrival time, client
};

struct QueriesWorkload final : WorkloadSpec {
  RequestArrivals arrivals;
  KernelSpec kernel;
  std::vector<SloTarget> targets;
  std::string kind() const override { return "queries"; }
  std::string unit() const override { return "requests"; }
  bool bounded() const override { return arrivals.bounded(); }
  bool open_loop() const override { return arrivals.open_loop(); }
  bool reports_latency() const override { return true; }
  std::vector<SloTarget> slo() const override { return targets; }
  std::unique_ptr<Workload> play(Fidelity, uint64_t seed) const override {
    return std::make_unique<QueriesPlay>(arrivals, kernel, seed);
  }
};

WorkloadKindInfo toy_request_kind() {
  static const std::vector<SloFigure> figures = {{"", "latency"}};
  WorkloadKindInfo kind;
  kind.name = "queries";
  kind.help = "requests of one kernel each, in arrival order";
  std::vector<KeySpec> keys = request_keys();
  keys.push_back({"kernel", "kernel", true, "", "each request's work"});
  keys.push_back({"slo", "slo", false, "", "latency targets"});
  kind.sections = {{"workload.queries", "Requests of one kernel each.", keys},
                   slo_section("workload.queries.slo", figures)};
  kind.read = [](Loader& loader, const MapReader& r, const ScenarioGpu& gpu) -> WorkloadRef {
    auto w = std::make_shared<QueriesWorkload>();
    w->arrivals = read_request_arrivals(loader, r);
    w->kernel = loader.kernel(r.node("kernel"), r.child_path("kernel"), "fp32", gpu);
    if (r.has("slo")) {
      MapReader s(r.file(), r.node("slo"), r.child_path("slo"), section_named("workload.queries.slo"));
      s.finish();
      w->targets = read_slo(loader, s, figures);
    }
    return w;
  };
  return kind;
}

// ---- A toy output format: one line per tenant. ----

RunFormat toy_format() {
  return {"units", "units.txt", "tenant and units, one per line", false, [](const RunReport& report) {
            std::string out;
            for (const TenantResult& t : report.results.tenants)
              out += t.name + " " + std::to_string(t.shared.units) + "\n";
            return out;
          }};
}

// Registered at start-up, as a plug-in would be. These tests are a program of their own (extension_tests), so that
// the other tests see the built-in registries only.
const bool kRegistered = [] {
  register_sharing_mode(toy_mode());
  register_workload_kind(toy_kind());
  register_workload_kind(toy_request_kind());
  register_run_format(toy_format());
  return true;
}();

const std::string kScenario = R"(version: 1
name: toys
gpus: [{id: g0, model: H100-SXM}]
sharing: {g0: {mode: toy_share, share: 25%}}
tenants:
  - {name: a, on: g0, workload: {bursts: {count: 3, kernels: 2, kernel: {duration: 1ms}}}}
)";

TEST(Extension, AToyModeRegisteredFromOneFileRuns) {
  ASSERT_TRUE(kRegistered);
  const Results r = testing_support::run_text(kScenario);
  ASSERT_EQ(r.tenants.size(), 1u);
  EXPECT_EQ(r.gpus[0].mode, "toy_share");
  // At a quarter of the GPU the tenant takes four times as long as alone.
  EXPECT_NEAR(r.tenants[0].relative_performance, 0.25, 1e-9);
  // Its flag parameter is read as a flag.
  std::string full = kScenario;
  full.replace(full.find("share: 25%"), 10, "full_speed: true");
  EXPECT_NEAR(testing_support::run_text(full).tenants[0].relative_performance, 1.0, 1e-9);
  EXPECT_NE(testing_support::error_of(kScenario.substr(0, kScenario.find("share: 25%")) + "full_speed: maybe}}\n" +
                                          kScenario.substr(kScenario.find("tenants:")),
                                      "t.yaml")
                .find("sharing.g0.full_speed: expected true or false, found 'maybe'"),
            std::string::npos);
  // It is listed with its parameters, typed.
  const std::string listing = models_listing();
  EXPECT_NE(listing.find("toy_share - every context with work at a fixed share"), std::string::npos);
  EXPECT_NE(listing.find("toy_share.full_speed"), std::string::npos);
  EXPECT_NE(listing.find("true | false"), std::string::npos);
}

TEST(Extension, AToyWorkloadKindRegisteredFromOneFileRuns) {
  ASSERT_TRUE(kRegistered);
  const Results r = testing_support::run_text(kScenario);
  EXPECT_EQ(r.tenants[0].workload, "bursts");
  EXPECT_EQ(r.tenants[0].unit, "bursts");
  EXPECT_EQ(r.tenants[0].shared.units, 3);
  // Two 1 ms kernels per burst share the context: 2 ms of solo work per burst, alone.
  EXPECT_NEAR(r.tenants[0].baseline.unit_time_mean, 2e-3, 1e-9);
  // Its keys are checked and documented like the built-in kinds'.
  std::string bad = kScenario;
  bad.replace(bad.find("kernels: 2"), 10, "kernals: 2");
  EXPECT_NE(testing_support::error_of(bad, "t.yaml").find("unknown key 'kernals'; did you mean 'kernels'?"),
            std::string::npos);
  const std::string reference = scenario_reference_markdown();
  EXPECT_NE(reference.find("## `workload.bursts`"), std::string::npos);
  EXPECT_NE(reference.find("| `bursts` | workload.bursts |"), std::string::npos);
}

TEST(Extension, AToyRequestKindTakesTheSharedArrivalsAndSlos) {
  ASSERT_TRUE(kRegistered);
  // Closed loop: two clients, no think time, 1 ms requests served one at a time (on passthrough, the default: 2%
  // slower): each request but the first waits for the other client's.
  const std::string closed = R"(version: 1
name: queries
gpus: [{id: g0, model: H100-SXM}]
tenants:
  - {name: q, on: g0, start: 0s,
     workload: {queries: {clients: 2, requests: 10, kernel: {duration: 1ms}, slo: {p95: 2.5ms}}}}
)";
  const Results r = testing_support::run_text(closed);
  ASSERT_EQ(r.tenants.size(), 1u);
  EXPECT_EQ(r.tenants[0].shared.units, 10);
  EXPECT_NEAR(r.tenants[0].shared.unit_time_mean, 1.02 * (1e-3 + 9 * 2e-3) / 10, 1e-9);
  ASSERT_EQ(r.tenants[0].slo.size(), 1u);
  EXPECT_EQ(r.tenants[0].slo[0].percentile, 95);
  EXPECT_TRUE(r.tenants[0].slo[0].met);
  // The source's rules and messages come with it.
  std::string both = closed;
  both.replace(both.find("clients: 2"), 10, "clients: 2, rate: 5/s");
  EXPECT_NE(testing_support::error_of(both, "t.yaml").find("give either `rate` (open loop) or `clients` (closed loop)"),
            std::string::npos);
  std::string cv = closed;
  cv.replace(cv.find("clients: 2"), 10, "clients: 2, cv: 2");
  EXPECT_NE(testing_support::error_of(cv, "t.yaml").find("`cv` goes with `rate`"), std::string::npos);
  // Open loop with gamma gaps: as many requests as asked for.
  std::string open = closed;
  open.replace(open.find("clients: 2"), 10, "rate: 100/s, cv: 2");
  EXPECT_EQ(testing_support::run_text(open).tenants[0].shared.units, 10);
  const std::string reference = scenario_reference_markdown();
  EXPECT_NE(reference.find("## `workload.queries.slo`"), std::string::npos);
  EXPECT_NE(reference.find("| `p999` | time |"), std::string::npos);
}

TEST(Extension, AToyOutputFormatRegisteredFromOneFileIsWritten) {
  ASSERT_TRUE(kRegistered);
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "vgpusim-toy-format";
  std::filesystem::remove_all(dir);
  RunOptions options;
  options.out_dir = dir.string();  // --out writes every format with a file there: results.json, results.csv, units.txt
  options.writes = {{"units", (dir / "again.txt").string()}};
  options.quiet = true;
  ASSERT_EQ(run_scenario_command(parse_scenario_document(kScenario, "toys.yaml"), options), 0);
  for (const char* name : {"units.txt", "again.txt"}) {
    std::ifstream in(dir / name);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), "a 3\n") << name;
  }
  EXPECT_TRUE(std::filesystem::exists(dir / "results.json"));
  options.writes = {{"unit", (dir / "x").string()}};
  try {
    run_scenario_command(parse_scenario_document(kScenario, "toys.yaml"), options);
    FAIL() << "an unknown format was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no output format 'unit'; did you mean 'units'?"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace vgpusim::unit_extension
