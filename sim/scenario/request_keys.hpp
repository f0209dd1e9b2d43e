// The keys of a request-driven workload kind (inference, llm, a plug-in's): where its requests come from (`rate`
// and `cv` in open loop, `clients` and `think` in closed loop, `requests`) and its SLO targets (a bound per
// percentile p50, p90, p95, p99, p999 of each figure it reports), documented once and read into the model's
// RequestArrivals and SloTargets. A kind puts request_keys() in its section and slo_section() beside it.
#pragma once

#include <string>
#include <vector>

#include "models/workload/request_source.hpp"
#include "models/workload/workload.hpp"
#include "sim/io/yaml_reader.hpp"

namespace vgpusim {

struct Loader;

// A figure a kind's SLO targets may bound: its key prefix ("" for the request's latency, else e.g. "ttft") and what
// it is, for the reference ("end-to-end latency", "time to first token").
struct SloFigure {
  std::string prefix;
  std::string what;
};

// rate, cv, clients, think (in that order), then requests. `with_trace`: the kind also takes a `trace` of arrivals
// (read by the kind), so `requests` defaults to the whole trace.
std::vector<KeySpec> request_keys(bool with_trace = false);
KeySpec requests_key(bool with_trace = false);
// Reads the arrivals: exactly one of `rate` and `clients` (or of `trace`, `rate` and `clients` with `trace_given`
// allowed; a trace's times are the kind's to set), their companions, and `requests`.
RequestArrivals read_request_arrivals(Loader& loader, const MapReader& r, bool with_trace = false);

// The section `path` (e.g. "workload.inference.slo") with a bound per percentile of each figure.
Section slo_section(const std::string& path, const std::vector<SloFigure>& figures);
// The targets of an `slo` mapping read with that section.
std::vector<SloTarget> read_slo(Loader& loader, const MapReader& s, const std::vector<SloFigure>& figures);

}  // namespace vgpusim
