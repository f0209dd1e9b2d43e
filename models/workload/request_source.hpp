// Where a request-driven workload's requests come from (inference, llm, and any kind a plug-in adds): an open loop
// (arrivals at a rate, or at a trace's times) or a closed loop of clients that each wait for their answer and think
// before the next request. The workload keeps what a request is and how it is served; the source only says when
// requests arrive and keeps count of them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "models/workload/distribution.hpp"
#include "sim/core/rng.hpp"

namespace vgpusim {

class WorkloadPort;

struct RequestArrivals {
  // Open loop: arrivals at `rate` (per s) with gamma-distributed gaps of coefficient of variation `cv` (1 =
  // Poisson), or at the times of a trace (s from the workload's start; `trace_speed` times as fast).
  double rate = 0;
  double cv = 1;
  std::shared_ptr<const std::vector<double>> trace_times;
  double trace_speed = 1;
  // Closed loop: clients with one request each in flight, `think` between an answer and the next request.
  long long clients = 0;
  Distribution think;
  // Requests to issue, all clients together; -1 = until the trace ends, or the scenario.
  long long requests = -1;

  bool open_loop() const { return clients == 0; }
  bool bounded() const { return requests >= 0 || trace_times != nullptr; }
};

// One request as it arrives: its number (from 0, in arrival order: a trace's row) and the client that waits for it
// (-1 in open loop).
struct Arrival {
  uint64_t index = 0;
  long long client = -1;
};

// The arrivals of one run. The workload forwards its timers (the source's are those `owns` says) and tells the
// source when a client's request is answered. Random draws come from the workload's own stream, interleaved with
// its other draws in event order.
class RequestSource {
 public:
  RequestSource(const RequestArrivals& spec, Rng& rng);

  // The first arrival, or every client's first think.
  void start(WorkloadPort& port);
  // Whether a timer tag is one of the source's (the workload's own tags stay below 2^60).
  static bool owns(uint64_t tag) { return tag >= kTagBase; }
  // For a tag it owns: the request that arrives now goes to `arrive`; then the next open-loop arrival is scheduled.
  void on_timer(WorkloadPort& port, uint64_t tag, const std::function<void(const Arrival&)>& arrive);
  // A closed-loop client's request was answered (or refused): it thinks, then sends its next one.
  void answered(WorkloadPort& port, long long client);
  // No request is left to arrive: none scheduled, no client thinking, none left to issue.
  bool done() const { return left_ == 0 && !arrival_pending_ && thinking_ == 0; }

 private:
  static constexpr uint64_t kTagBase = 1ULL << 60;  // the next open-loop arrival; + 1 + c: client c's next request

  bool take();
  void schedule_arrival(WorkloadPort& port);
  void client_thinks(WorkloadPort& port, long long client);

  RequestArrivals spec_;
  Rng& rng_;
  long long left_;
  uint64_t next_index_ = 0;  // the number of the next request to arrive
  double start_ = -1;        // when the workload started (trace times count from it)
  long long thinking_ = 0;
  bool arrival_pending_ = false;
};

}  // namespace vgpusim
