// A fixed-cycle slot scheduler for hardware time-slicing at fixed shares (NVIDIA vGPU equal/fixed share, SR-IOV
// VFs): a cycle of equal slots, each owned by a context or by nobody. An owner with work runs its slot (paying a
// switch at the start when another context's state is loaded); a slot whose owner has no work stays idle, so
// busy contexts never get more than their slots.
#pragma once

#include <memory>
#include <vector>

#include "sim/core/sharing_model.hpp"

namespace vgpusim {

struct SlotCycle {
  std::vector<int> owners;  // per slot: context index, or -1 for a slot nobody owns
  double slot = 0;          // s, length of one slot
  double switch_cost = 0;   // s, paid inside the slot when its owner is not the loaded context
  bool skip_idle = false;   // true: slots of owners without work are skipped (work-conserving round robin)
  // Per context: when its slots join the cycle (equal share: a VM's vGPU exists from its start; before, the VM has
  // no context and its slots are not in the cycle). Empty: every slot is in the cycle from t = 0.
  std::vector<double> resident_from;
  double idle_switch_cost = 0;  // s, instead of switch_cost when the loaded context has no work in flight (exact)
};

// Exact fidelity plays every slot; fluid fidelity gives each busy context its long-run share of the cycle.
std::unique_ptr<SharingModel> make_slot_scheduler(SlotCycle cycle, Fidelity fidelity);

// The long-run rate of each busy context under `cycle` at time `now` (used by the fluid model and by tests).
std::vector<double> slot_cycle_rates(const SlotCycle& cycle, const std::vector<bool>& busy, double now = 0);

}  // namespace vgpusim
