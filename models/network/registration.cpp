// The network room's models join `vgpusim list models`, calibration files and the docs when the room is linked in
// (it is an object library, so this initializer always runs).
#include "models/network/collectives.hpp"
#include "models/network/data_parallel.hpp"
#include "models/descriptions/model_descriptions.hpp"

namespace vgpusim {
namespace {

const bool kRegistered = [] {
  register_model_description(
      {"network", "network", network_description(),
       "SimGrid 3.32 with its CM02 network model (Casanova and Marchal, 2002; SimGrid: Casanova, Giersch, "
       "Legrand, Quinson and Suter, JPDC 74(10), 2014)",
       "network.md", "link presets for ring all-reduce between GPUs and nodes", network_params()});
  register_model_description({"data_parallel", "training", data_parallel_description(),
                              "Li et al., PyTorch Distributed, VLDB 2020; Sergeev and Del Balso, Horovod, "
                              "arXiv:1802.05799",
                              "network.md", "per-iteration time of a data-parallel training step on N GPUs",
                              data_parallel_params()});
  // One node of `gpus` GPUs on the link kind: compute from the roofline, the ring all-reduce from SimGrid, the
  // declared defaults of both models.
  register_data_parallel_efficiency([](const DataParallelQuery& q) {
    ClusterTopology topo;
    topo.nodes = 1;
    topo.gpus_per_node = q.gpus;
    topo.intra = link_preset(q.link);
    topo.inter = topo.intra;
    TrainingStep step{"cluster job", q.step, q.parameters, q.bytes_per_gradient};
    return data_parallel(step, q.gpu, topo, q.gpus, DataParallelParams::table().defaults(),
                         RooflineParams::table().defaults())
        .efficiency;
  });
  return true;
}();

}  // namespace
}  // namespace vgpusim
