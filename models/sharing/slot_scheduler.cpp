// Fixed-cycle slot scheduling. Exact: a slot grid that keeps running while anyone has work; the loaded context is
// remembered, so consecutive slots of one owner (or an owner returning after idle slots) pay no switch.
#include "models/sharing/slot_scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vgpusim {

namespace {

// Whether the slots of owner `o` (-1: nobody) are in the cycle at `now`.
bool slot_exists(const SlotCycle& c, int o, double now) {
  return o < 0 || c.resident_from.empty() || static_cast<size_t>(o) >= c.resident_from.size() ||
         now >= c.resident_from[static_cast<size_t>(o)];
}

// The next time after `now` at which a context's slots join the cycle; infinity when none is due.
double next_arrival(const SlotCycle& c, double now) {
  double next = std::numeric_limits<double>::infinity();
  for (double t : c.resident_from)
    if (t > now) next = std::min(next, t);
  return next;
}

}  // namespace

std::vector<double> slot_cycle_rates(const SlotCycle& c, const std::vector<bool>& busy, double now) {
  const size_t n = busy.size(), slots = c.owners.size();
  std::vector<double> rate(n, 0.0);
  auto owner_busy = [&](int o) { return o >= 0 && static_cast<size_t>(o) < n && busy[static_cast<size_t>(o)]; };
  // Slots that take part in the cycle: those that exist now, all of them or with skip_idle only those of busy
  // owners.
  size_t cycle_slots = 0;
  for (int o : c.owners) cycle_slots += slot_exists(c, o, now) && (!c.skip_idle || owner_busy(o)) ? 1 : 0;
  if (cycle_slots == 0) return rate;
  // Switches: a busy owner pays one at the start of each run of its slots that follows another busy owner's run
  // in the cycle (idle and empty slots keep the previous owner's state loaded).
  std::vector<double> run_time(n, 0.0);
  std::vector<size_t> switches(n, 0);
  int loaded = -1, busy_owners = 0;
  std::vector<bool> seen(n, false);
  for (size_t s = 0; s < slots; ++s) {
    const int o = c.owners[s];
    if (owner_busy(o) && !seen[static_cast<size_t>(o)]) {
      seen[static_cast<size_t>(o)] = true;
      ++busy_owners;
    }
  }
  // The state loaded when the cycle starts is that of the last busy owner in it (the cycle repeats).
  for (size_t s = 0; s < slots; ++s)
    if (owner_busy(c.owners[s])) loaded = c.owners[s];
  for (size_t s = 0; s < slots; ++s) {
    const int o = c.owners[s];
    if (!owner_busy(o)) continue;
    const auto i = static_cast<size_t>(o);
    run_time[i] += c.slot;
    if (o != loaded && busy_owners > 1) ++switches[i];
    loaded = o;
  }
  const double period = static_cast<double>(cycle_slots) * c.slot;
  for (size_t i = 0; i < n; ++i)
    if (busy[i])
      rate[i] = std::max(0.0, run_time[i] - static_cast<double>(switches[i]) * c.switch_cost) / period;
  return rate;
}

namespace {

class SlotFluid final : public SharingModel {
 public:
  explicit SlotFluid(SlotCycle c) : c_(std::move(c)) {}
  void decide(double now, std::span<const ContextLoad> contexts, ShareDecision& out) override {
    busy_.assign(contexts.size(), false);
    for (size_t i = 0; i < contexts.size(); ++i) busy_[i] = contexts[i].active > 0;
    const std::vector<double> r = slot_cycle_rates(c_, busy_, now);
    for (size_t i = 0; i < contexts.size(); ++i) out.rate[i] = r[i];
    out.wake_at = next_arrival(c_, now);  // the shares change when another context's slots join
  }

 private:
  SlotCycle c_;
  std::vector<bool> busy_;
};

class SlotExact final : public SharingModel {
 public:
  explicit SlotExact(SlotCycle c) : c_(std::move(c)) {}

  void decide(double now, std::span<const ContextLoad> contexts, ShareDecision& out) override {
    for (double& r : out.rate) r = 0.0;
    out.wake_at = std::numeric_limits<double>::infinity();
    now_ = now;
    bool anyone = false;
    for (const ContextLoad& l : contexts) anyone = anyone || l.active > 0;
    if (!running_) {
      if (!anyone) return;
      // The grid (re)starts when work appears after an idle spell, at the next slot whose owner has work.
      running_ = true;
      slot_index_ = first_slot_with_work(contexts, slot_index_);
      start_slot(now);
    }
    while (now >= slot_end_) {  // every slot boundary that has passed
      if (!anyone) {
        running_ = false;
        return;
      }
      slot_index_ = next_slot(contexts, slot_index_);
      start_slot(slot_end_);
    }
    const int owner = c_.owners[slot_index_];
    if (!busy(contexts, owner)) {
      out.wake_at = slot_end_;  // the slot stays idle; the grid moves on at its end
      return;
    }
    if (owner != loaded_) {  // its state must be loaded first (nothing to save when the device is fresh)
      // Saving the loaded context's state costs the switch only if it has work in flight (a preemption).
      const double cost = busy(contexts, loaded_) ? c_.switch_cost : c_.idle_switch_cost;
      run_from_ = loaded_ < 0 ? now : now + cost;
      loaded_ = owner;
    }
    if (now >= run_from_) out.rate[static_cast<size_t>(owner)] = 1.0;
    out.wake_at = now < run_from_ ? std::min(run_from_, slot_end_) : slot_end_;
  }

 private:
  bool busy(std::span<const ContextLoad> contexts, int o) const {
    return o >= 0 && static_cast<size_t>(o) < contexts.size() && contexts[static_cast<size_t>(o)].active > 0;
  }
  // Slots of contexts that do not exist yet are not in the cycle (resident_from).
  bool exists(size_t slot) const { return slot_exists(c_, c_.owners[slot], now_); }
  size_t next_slot(std::span<const ContextLoad> contexts, size_t from) const {
    const size_t n = c_.owners.size();
    for (size_t k = 1; k <= n; ++k) {
      const size_t s = (from + k) % n;
      if (exists(s) && (!c_.skip_idle || busy(contexts, c_.owners[s]))) return s;
    }
    return (from + 1) % n;
  }
  size_t first_slot_with_work(std::span<const ContextLoad> contexts, size_t from) const {
    const size_t n = c_.owners.size();
    for (size_t k = 0; k < n; ++k)
      if (busy(contexts, c_.owners[(from + k) % n])) return (from + k) % n;
    return from % n;
  }
  void start_slot(double start) {
    slot_end_ = start + c_.slot;
    run_from_ = start;
  }

  SlotCycle c_;
  double now_ = 0;
  bool running_ = false;
  size_t slot_index_ = 0;
  double slot_end_ = 0;
  double run_from_ = 0;  // start of the running part of the current slot (after its switch)
  int loaded_ = -1;      // the context whose state is on the device
};

}  // namespace

std::unique_ptr<SharingModel> make_slot_scheduler(SlotCycle cycle, Fidelity fidelity) {
  if (fidelity == Fidelity::Fluid) return std::make_unique<SlotFluid>(std::move(cycle));
  return std::make_unique<SlotExact>(std::move(cycle));
}

}  // namespace vgpusim
