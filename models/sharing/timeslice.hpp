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

// How long a context without work keeps the GPU before a switch, and why it is none.
inline constexpr double kIdleGrace = 0;
inline constexpr const char* kIdleGraceSource =
    "none: NVIDIA's host manuals have a channel group run 'until either every channel in the TSG runs out of work or "
    "the timeslice expires' and list 'the channel runs out of work' as a TSG event point (NVIDIA/open-gpu-doc "
    "c8607fe manuals/ampere/ga100/dev_pbdma.ref.txt lines 3821, 1251-1253; volta/gv100 line 3409); the Lucid pairs "
    "(RTX 3090, `vgpusim validate --published lucid`) are predicted best with none. The ~800 us of the NVIDIA "
    "developer forum thread 'How does the GPU decide when to switch-out a CUDA context?' (2021, Jetson) was one "
    "context alone, with none waiting; hwcal's timeslice.handoff experiment measures it";

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
