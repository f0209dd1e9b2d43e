// A request-driven workload kind's arrival and SLO keys (request_keys.hpp).
#include "sim/scenario/request_keys.hpp"

#include <fmt/format.h>

#include "sim/scenario/loader_state.hpp"

namespace vgpusim {
namespace {

// The percentiles a target may bound, as keys name them.
constexpr std::pair<const char*, double> kPercentiles[] = {
    {"p50", 50}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p999", 99.9}};

std::string slo_key(const SloFigure& f, const char* percentile) {
  return f.prefix.empty() ? percentile : f.prefix + "_" + percentile;
}

}  // namespace

KeySpec requests_key(bool with_trace) {
  return {"requests", "integer", false, "", "requests to issue (all clients together)",
          with_trace ? "the whole trace, or until the scenario ends" : "until the scenario ends"};
}

std::vector<KeySpec> request_keys(bool with_trace) {
  return {{"rate", "rate", false, "",
           with_trace ? "open loop: mean arrival rate, e.g. 40/s" : "open loop: mean arrival rate, e.g. 40/s (give "
                                                                     "`rate` or `clients`)"},
          {"cv", "ratio", false, "1", "open loop: inter-arrival coefficient of variation (gamma; 1 = Poisson)"},
          {"clients", "integer", false, "", "closed loop: clients with one request each in flight"},
          {"think", "time or distribution", false, "0 s",
           "closed loop: a client's time between its answer and its next request"},
          requests_key(with_trace)};
}

RequestArrivals read_request_arrivals(Loader& loader, const MapReader& r, bool with_trace) {
  const std::string& file = r.file();
  RequestArrivals a;
  const int given = (with_trace && r.has("trace") ? 1 : 0) + (r.has("rate") ? 1 : 0) + (r.has("clients") ? 1 : 0);
  if (given != 1)
    fail_at(file, r.node(), r.path(),
            with_trace ? "give one of `trace`, `rate` (open loop) or `clients` (closed loop)"
                       : "give either `rate` (open loop) or `clients` (closed loop)");
  if (with_trace && r.has("trace")) {
    for (const char* k : {"cv", "think"})
      if (r.has(k)) fail_at(file, r.node(k), r.child_path(k), fmt::format("`{}` does not go with `trace`", k));
  } else if (r.has("rate")) {
    a.rate = loader.positive(r, "rate", units::Dim::Rate);
    a.cv = loader.positive(r, "cv", units::Dim::Ratio);
    if (r.has("think")) fail_at(file, r.node("think"), r.child_path("think"), "`think` goes with `clients`");
  } else {
    a.clients = r.integer("clients", 1, 100000);
    a.think = loader.distribution(r, "think", units::Dim::Time);
    if (r.has("cv")) fail_at(file, r.node("cv"), r.child_path("cv"), "`cv` goes with `rate`");
  }
  if (r.has("requests")) a.requests = r.integer("requests", 0, 1LL << 50);
  return a;
}

Section slo_section(const std::string& path, const std::vector<SloFigure>& figures) {
  Section s{path,
            "Targets per request: a target is met when at least its percentile of the requests is within the bound. "
            "A request is good (counted in good_requests where the kind reports it) when it meets every bound.",
            {}};
  for (const SloFigure& f : figures)
    for (const auto& [key, pct] : kPercentiles)
      s.keys.push_back(
          {slo_key(f, key), "time", false, "", fmt::format("bound for the {:g}th percentile of the {}", pct, f.what)});
  return s;
}

std::vector<SloTarget> read_slo(Loader& loader, const MapReader& s, const std::vector<SloFigure>& figures) {
  std::vector<SloTarget> out;
  for (const SloFigure& f : figures)
    for (const auto& [key, pct] : kPercentiles) {
      const std::string k = slo_key(f, key);
      if (s.has(k)) out.push_back({pct, loader.positive(s, k, units::Dim::Time), f.prefix});
    }
  return out;
}

}  // namespace vgpusim
