// Request arrivals (request_source.hpp).
#include "models/workload/request_source.hpp"

#include <algorithm>

#include "models/workload/workload.hpp"

namespace vgpusim {

RequestSource::RequestSource(const RequestArrivals& spec, Rng& rng) : spec_(spec), rng_(rng), left_(spec.requests) {
  if (spec_.trace_times && (left_ < 0 || left_ > static_cast<long long>(spec_.trace_times->size())))
    left_ = static_cast<long long>(spec_.trace_times->size());
}

void RequestSource::start(WorkloadPort& port) {
  if (spec_.clients > 0)
    for (long long c = 0; c < spec_.clients; ++c) client_thinks(port, c);
  else
    schedule_arrival(port);
}

bool RequestSource::take() {
  if (left_ == 0) return false;
  if (left_ > 0) --left_;
  return true;
}

void RequestSource::schedule_arrival(WorkloadPort& port) {
  if (!take()) return;
  arrival_pending_ = true;
  double at;
  if (spec_.trace_times) {
    if (start_ < 0) start_ = port.now();
    at = std::max(port.now(), start_ + (*spec_.trace_times)[next_index_] / spec_.trace_speed);
  } else {
    const double mean = 1.0 / spec_.rate;
    const Distribution gap = spec_.cv == 1 ? Distribution{Distribution::Kind::Exponential, mean, 0}
                                           : Distribution{Distribution::Kind::Gamma, mean, spec_.cv * mean};
    at = port.now() + gap.sample(rng_);
  }
  port.wake_at(at, kTagBase);
}

void RequestSource::client_thinks(WorkloadPort& port, long long client) {
  if (!take()) return;
  ++thinking_;
  port.wake_at(port.now() + spec_.think.sample(rng_), kTagBase + 1 + static_cast<uint64_t>(client));
}

void RequestSource::on_timer(WorkloadPort& port, uint64_t tag, const std::function<void(const Arrival&)>& arrive) {
  if (tag == kTagBase) {
    arrival_pending_ = false;
    arrive({next_index_++, -1});
    schedule_arrival(port);
  } else {
    --thinking_;
    arrive({next_index_++, static_cast<long long>(tag - kTagBase - 1)});
  }
}

void RequestSource::answered(WorkloadPort& port, long long client) {
  if (client >= 0) client_thinks(port, client);
}

}  // namespace vgpusim
