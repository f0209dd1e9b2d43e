// The event heap: events ordered by (time, sequence number), so that events at the same simulated time are
// handled in the order they were scheduled and every run is deterministic.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

namespace vgpusim {

struct Event {
  double time;    // s
  uint64_t seq;   // tie-breaker: scheduling order
  uint64_t aux;   // kind-specific (timer tag, GPU wake version)
  uint32_t target;
  uint8_t kind;
};

struct EventLater {
  bool operator()(const Event& a, const Event& b) const {
    if (a.time != b.time) return a.time > b.time;
    return a.seq > b.seq;
  }
};

class EventQueue {
 public:
  void push(double time, uint8_t kind, uint32_t target, uint64_t aux) {
    heap_.push(Event{time, next_seq_++, aux, target, kind});
  }
  bool empty() const { return heap_.empty(); }
  const Event& top() const { return heap_.top(); }
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    return e;
  }
  size_t size() const { return heap_.size(); }

 private:
  std::priority_queue<Event, std::vector<Event>, EventLater> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace vgpusim
