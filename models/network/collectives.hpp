// Cluster network topology (GPUs in nodes, nodes on a fabric) and ring all-reduce time, simulated with SimGrid
// (one forked child per distinct computation, memoized) and cross-checked by the analytic ring formula.
#pragma once

#include <string>
#include <vector>

#include "models/gpu/ring_allreduce.hpp"
#include "sim/core/params.hpp"

namespace vgpusim {

// One kind of link as the ring sees it: bandwidth per direction and the latency of one ring step over it.
struct LinkSpec {
  std::string kind;      // e.g. "nvlink3", "pcie4", "ib-hdr", "eth-10g"
  double bandwidth = 0;  // bytes/s per direction per GPU (intra) or per node NIC (inter)
  double latency = 0;    // s per ring step (one hop)
};

// GPUs per node joined by `intra` (each GPU has its own full-duplex port into the node fabric: NVSwitch or a PCIe
// switch); nodes joined by `inter` (one full-duplex NIC per node into a non-blocking switch).
struct ClusterTopology {
  int nodes = 1;
  int gpus_per_node = 1;
  LinkSpec intra;
  LinkSpec inter;

  int gpus() const { return nodes * gpus_per_node; }
  std::string key() const;  // exact identity for memoization (hex floats)
};

// Declared link presets (registered as model "network"): `<kind>_bandwidth` (per direction) and `<kind>_latency`
// for every kind in link_kinds(), with cited defaults.
std::vector<ParamSpec> network_params();
std::string network_description();
std::vector<std::string> link_kinds();
// The preset `kind` from `p` (which holds network_params()). Throws std::invalid_argument for an unknown kind.
LinkSpec link_preset(const std::string& kind);  // with the declared defaults

// ring_allreduce_analytic(gpus, bytes, bandwidth, latency): models/gpu/ring_allreduce.hpp.
// The analytic formula on a topology: the slowest link on the ring sets the bandwidth term; each of the 2(N-1)
// steps pays the slowest hop's latency (the ring steps in lockstep).
double ring_allreduce_analytic(const ClusterTopology& topo, int gpus, double bytes);

// Ring all-reduce time (s) of `bytes` per GPU over the first `gpus` GPUs of `topo` (node-major ring order),
// simulated with SimGrid: 2(N-1) steps, each GPU sending a bytes/N chunk to its ring successor and receiving one
// from its predecessor. Memoized per (topology, N, bytes); each new computation runs in a forked child process,
// since SimGrid allows one Engine per process. Throws std::runtime_error if the child fails.
double ring_allreduce_time(const ClusterTopology& topo, int gpus, double bytes);

// How many SimGrid children ring_allreduce_time has forked in this process (for tests of the memo).
int simgrid_runs();

}  // namespace vgpusim
