// The interface every sharing mode's model implements. The engine asks a GPU's SharingModel for each context's
// share of the GPU whenever that GPU's set of busy contexts changes or the model's own timer (a slice boundary)
// fires; it never knows which mode it runs. The modes themselves and their registry are in models/sharing.
#pragma once

#include <limits>
#include <span>
#include <vector>

namespace vgpusim {

enum class Fidelity { Exact, Fluid };

// What a model sees of one context (a tenant's process on this GPU).
struct ContextLoad {
  int active = 0;  // activities (kernels) in flight; 0 = the context has no work now
  int holds = 0;   // of those, idle holds (see SharingModel::idle_hold): they progress but do no work
  // Means over the in-flight kernels (which share the context's rate equally). For a kernel with solo time T (its
  // SM side c and memory side m combined as the roofline's overlap says: max(c, m) when they overlap fully):
  // compute_fraction = c / T, memory_fraction = m / T (the share of its time it waits on DRAM; at solo speed it
  // draws memory_fraction x bandwidth_reach of the device's bandwidth), sm_fill = the fraction of SMs its blocks
  // fill.
  double compute_fraction = 0;
  double memory_fraction = 0;
  double sm_fill = 1;
  double kernel_time = 0;  // solo seconds of one of its kernels (an activity may stand for several); 0 = unknown
  // Counters since the context was created, for models that act on launches (a launch limiter): activities started
  // (idle holds excluded) and the thread blocks they launched. Kernels finish in launch order as far as a model
  // can tell: launches - (active - holds) of them have finished.
  long long launches = 0;
  double launched_blocks = 0;
  double stream_launched = 1;  // mean over the in-flight kernels of ActivityDemand::stream_launched
  double bandwidth_reach = 1;  // mean of ActivityDemand::bandwidth_reach: it draws memory_fraction x this alone
  double occupancy = 0;        // mean of ActivityDemand::occupancy (0 = unknown: sm_fill stands for it)
  double overhead_fraction = 0;  // mean of ActivityDemand::overhead_fraction
};

// What an activity asks of the device, for the models that share SMs and bandwidth (see ContextLoad).
struct ActivityDemand {
  double compute_fraction = 1;
  double memory_fraction = 0;
  double sm_fill = 1;
  double kernel_time = 0;  // solo seconds of one of the kernels it stands for; 0 = unknown
  double blocks = 0;       // thread blocks of all the kernels it stands for (grid size x kernels); 0 = unknown
  // 1: its kernels are launched one by one on a stream (through the driver, or an MPS server); 0: they are nodes of
  // a CUDA graph or iterations of a persistent kernel.
  double stream_launched = 1;
  // Share of the bandwidth its bytes in flight reach alone (below 1: too few threads; the roofline's occupancy):
  // while memory-bound it draws memory_fraction x bandwidth_reach of the device's bandwidth.
  double bandwidth_reach = 1;
  double occupancy = 0;  // share of the GPU's thread slots its blocks hold, when its block size is known; 0 = unknown
  // Share of its solo time that is its kernels' launch overhead (launch, ramp-up, tail): the SMs or bandwidth it is
  // given do not change that part.
  double overhead_fraction = 0;
};

// What a model answers: each context's progress rate as a fraction of the GPU's solo speed (1 = as fast as alone
// on a bare-metal GPU), and when it wants to be asked again (a slice boundary), as an absolute time.
struct ShareDecision {
  std::vector<double> rate;
  double wake_at = std::numeric_limits<double>::infinity();
  // The model holds every context that has work away from the GPU (a launch limiter): the GPU is idle, not busy.
  bool held_back = false;
};

class SharingModel {
 public:
  virtual ~SharingModel() = default;
  // `contexts` lists this GPU's contexts in a fixed order; `out.rate` has the same size on entry.
  // Rates of contexts without work are ignored. No rate may exceed 1 (a context's solo speed); the sum may, under
  // spatial sharing.
  virtual void decide(double now, std::span<const ContextLoad> contexts, ShareDecision& out) = 0;

  // Idle holds, for fluid models of schedulers that let a context keep the GPU a while after it runs out of work
  // (the time-slicing idle grace) and that average that grace into rates: whether they ever hold (then the engine
  // tracks each client's launch timers), and, in the model's present state, the expected solo-seconds of its share
  // that a context keeps when it runs out of work while another context on the GPU is active, its next launch being
  // `gap` seconds away (infinity: none known). The engine serves that much as an idle hold (sim/core/engine.cpp,
  // "Idle holds"). 0 (the default): no hold. Models that play the grace themselves (exact fidelity) return 0.
  virtual bool keeps_idle_grace() const { return false; }
  virtual double idle_hold(double /*gap*/) const { return 0; }
};

}  // namespace vgpusim
