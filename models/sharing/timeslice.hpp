// Round-robin time-slicing among contexts with work (a slice, then a switch to the next one with work), shared by
// the `timeslice` mode and the vGPU best-effort scheduler, and the published figures its defaults come from.
#pragma once

#include <memory>
#include <vector>

#include "sim/core/params.hpp"

#include "sim/core/sharing_model.hpp"

namespace vgpusim {

struct TimeSliceTimes {
  double slice = 0;             // s
  double switch_cost = 0;       // s, preempting a context with work in flight at its slice's end
  double idle_switch_cost = 0;  // s, any other switch: the context switched out has no work on the SMs
  double idle_grace = 0;        // s
};
std::unique_ptr<SharingModel> make_timeslice_model(const TimeSliceTimes& times, Fidelity fidelity);
// The `timeslice` mode's parameters (owner "timeslice"), which modes that run on the driver's time-slicing declare
// too (so a calibration's timeslice.* values reach them), and the times they hold.
const ParamTable<TimeSliceTimes>& timeslice_table();
std::vector<ParamSpec> timeslice_params();
TimeSliceTimes timeslice_times(const ParamValues& params);

// How long a context without work keeps the GPU before a switch, and the one public observation of it.
inline constexpr double kIdleGrace = 800e-6;
inline constexpr const char* kIdleGraceSource =
    "NVIDIA developer forum, 'How does the GPU decide when to switch-out a CUDA context?' (2021): Nsight Systems "
    "showed an idle context kept on the GPU for ~800 us before being switched out (Jetson); uncertain for other "
    "GPUs, to be measured";

// The time lost per switch between two CUDA contexts, and where that number comes from.
inline constexpr double kContextSwitchCost = 40e-6;
inline constexpr const char* kContextSwitchCostSource =
    "not published by NVIDIA; estimate: saving and restoring the register files and shared memory of an H100 "
    "(132 SMs x (256 KiB + 228 KiB) = 65 MB each way) at 3.35 TB/s takes ~39 us. Measured by the hwcal time-slice "
    "probe on an H200 between two busy processes: 158.9 us (hwcal/data/h200/2026-11-30, the shipped H200 "
    "calibration); GPUs without a measurement keep the estimate";

// The time lost per switch away from a context with no work in flight (it ran out, or the GPU was idle): no SM
// state to save, so none of the preemption's cost; and why.
inline constexpr double kIdleSwitchCost = 0;
inline constexpr const char* kIdleSwitchCostSource =
    "no measurement: the switch cost is that of preempting a context with work on the SMs (its state saved and "
    "another's restored); a context with no work in flight has none to save. hwcal's timeslice.handoff experiment "
    "measures it (not yet run on a GPU)";

}  // namespace vgpusim
