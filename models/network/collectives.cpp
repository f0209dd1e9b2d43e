// Ring all-reduce on a cluster topology: SimGrid (CM02, no cross-traffic) in a forked child per distinct question,
// memoized; the analytic ring formula beside it as the cross-check.
#include "models/network/collectives.hpp"

#include <array>
#include <fmt/format.h>
#include <simgrid/s4u.hpp>
#include <sys/wait.h>
#include <unistd.h>
#include <xbt/log.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>

namespace vgpusim {

namespace {

constexpr const char* kNcclTuning =
    "NCCL src/graph/tuning.cc hwLat table, Ring/Simple per-step latency (NVLink 3.4 us, PCI 5.7 us, NET 9.6 us), "
    "NCCL 2.x (github.com/NVIDIA/nccl)";

struct LinkPreset {
  const char* kind;
  double bandwidth;  // bytes/s per direction
  const char* bandwidth_source;
  double latency;  // s per ring step
  const char* latency_source;
};

const std::vector<LinkPreset>& presets() {
  static const std::vector<LinkPreset> p = {
      {"nvlink2", 150e9, "V100 datasheet: NVLink 300 GB/s per GPU, both directions together (docs/sources/team-measurements.md)", 3.4e-6,
       kNcclTuning},
      {"nvlink3", 300e9,
       "A100 datasheet / Ampere whitepaper: NVLink 3 600 GB/s per GPU, both directions together (docs/sources/team-measurements.md)",
       3.4e-6, kNcclTuning},
      {"nvlink4", 450e9, "H100 datasheet: NVLink 4 900 GB/s per GPU, both directions together (docs/sources/team-measurements.md)",
       3.4e-6, kNcclTuning},
      {"pcie3", 16e9, "PCIe 3.0 x16: 8 GT/s x 16 lanes, 128b/130b, ~16 GB/s per direction (PCI-SIG)", 5.7e-6,
       kNcclTuning},
      {"pcie4", 32e9, "PCIe 4.0 x16: 16 GT/s x 16 lanes, ~32 GB/s per direction (PCI-SIG; A100 datasheet PCIe4 64 GB/s "
                      "both directions)",
       5.7e-6, kNcclTuning},
      {"eth-10g", 1.25e9, "10GBASE Ethernet, IEEE 802.3: 10 Gb/s per direction", 9.6e-6,
       "NCCL tuning.cc NET Ring/Simple 9.6 us; uncertain for TCP sockets over Ethernet, which NCCL does not model "
       "apart (real socket latency is likely higher)"},
      {"eth-100g", 12.5e9, "100GBASE Ethernet, IEEE 802.3: 100 Gb/s per direction", 9.6e-6,
       "NCCL tuning.cc NET Ring/Simple 9.6 us; uncertain for TCP sockets over Ethernet"},
      {"ib-hdr", 25e9, "InfiniBand HDR 4x: 200 Gb/s per port per direction (InfiniBand Trade Association roadmap)",
       9.6e-6, kNcclTuning},
  };
  return p;
}

std::mutex g_memo_mutex;
std::map<std::string, double> g_memo;  // key -> s
int g_simgrid_runs = 0;

// Runs inside the forked child: builds the platform, runs the ring, returns the simulated end time (s).
double simulate_ring(const ClusterTopology& topo, int gpus, double bytes) {
  namespace sg4 = simgrid::s4u;
  int argc = 1;
  char name[] = "vgpusim-collectives";
  char* argv[] = {name, nullptr};
  xbt_log_control_set("root.thresh:critical");
  sg4::Engine engine(&argc, argv);
  // CM02 without cross-traffic and without the TCP window bound: time = latency + size / bandwidth under max-min
  // sharing, so the declared link figures mean what they say (LV08's 0.97 / x13.01 factors were fitted to TCP over
  // Ethernet, not to NVLink or RDMA; see docs/models/network.md).
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/crosstraffic:0");
  sg4::Engine::set_config("network/TCP-gamma:0");

  auto* zone = sg4::create_full_zone("cluster");
  std::vector<sg4::Host*> hosts;
  std::vector<sg4::Link*> gpu_tx, gpu_rx;  // each GPU's port into its node fabric, one link per direction
  for (int g = 0; g < gpus; ++g) {
    hosts.push_back(zone->create_host(fmt::format("gpu{}", g), 1e9)->seal());
    gpu_tx.push_back(zone->create_link(fmt::format("gpu{}-tx", g), topo.intra.bandwidth)
                         ->set_latency(topo.intra.latency / 2)
                         ->seal());
    gpu_rx.push_back(zone->create_link(fmt::format("gpu{}-rx", g), topo.intra.bandwidth)
                         ->set_latency(topo.intra.latency / 2)
                         ->seal());
  }
  const int nodes = (gpus + topo.gpus_per_node - 1) / topo.gpus_per_node;
  std::vector<sg4::Link*> nic_tx, nic_rx;
  for (int n = 0; n < nodes; ++n) {
    nic_tx.push_back(zone->create_link(fmt::format("node{}-tx", n), topo.inter.bandwidth)
                         ->set_latency(topo.inter.latency / 2)
                         ->seal());
    nic_rx.push_back(zone->create_link(fmt::format("node{}-rx", n), topo.inter.bandwidth)
                         ->set_latency(topo.inter.latency / 2)
                         ->seal());
  }
  for (int g = 0; g < gpus; ++g) {
    const int next = (g + 1) % gpus;
    const int node = g / topo.gpus_per_node, next_node = next / topo.gpus_per_node;
    std::vector<sg4::LinkInRoute> route;
    if (node == next_node) {
      route = {sg4::LinkInRoute(gpu_tx[static_cast<size_t>(g)]), sg4::LinkInRoute(gpu_rx[static_cast<size_t>(next)])};
    } else {  // GPUDirect RDMA: the NIC reads the GPU's memory; the NICs are the bottleneck
      route = {sg4::LinkInRoute(nic_tx[static_cast<size_t>(node)]),
               sg4::LinkInRoute(nic_rx[static_cast<size_t>(next_node)])};
    }
    zone->add_route(hosts[static_cast<size_t>(g)]->get_netpoint(), hosts[static_cast<size_t>(next)]->get_netpoint(),
                    nullptr, nullptr, route, false);
  }
  zone->seal();

  static int payload = 0;
  const auto chunk = static_cast<uint64_t>(bytes / gpus + 0.5);  // bytes per ring step
  const int steps = 2 * (gpus - 1);                               // reduce-scatter then all-gather
  for (int g = 0; g < gpus; ++g) {
    sg4::Actor::create(fmt::format("rank{}", g), hosts[static_cast<size_t>(g)], [g, gpus, chunk, steps] {
      sg4::Mailbox* to_next = sg4::Mailbox::by_name(fmt::format("ring{}", (g + 1) % gpus));
      sg4::Mailbox* mine = sg4::Mailbox::by_name(fmt::format("ring{}", g));
      for (int s = 0; s < steps; ++s) {
        sg4::CommPtr send = to_next->put_async(&payload, chunk);
        mine->get<int>();  // the predecessor's chunk; the next step needs it (reduce / forward)
        send->wait();
      }
    });
  }
  engine.run();
  return sg4::Engine::get_clock();
}

// Runs simulate_ring in a child process and reads its answer from a pipe.
double simulate_ring_in_child(const ClusterTopology& topo, int gpus, double bytes) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("ring all-reduce: pipe() failed");
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error("ring all-reduce: fork() failed");
  }
  if (pid == 0) {
    ::close(fds[0]);
    double t = -1;
    try {
      t = simulate_ring(topo, gpus, bytes);
    } catch (...) {
      t = -1;
    }
    const bool ok = ::write(fds[1], &t, sizeof t) == static_cast<ssize_t>(sizeof t);
    ::_exit(ok && t >= 0 ? 0 : 3);
  }
  ::close(fds[1]);
  double t = -1;
  size_t got = 0;
  auto* out = reinterpret_cast<char*>(&t);
  while (got < sizeof t) {
    const ssize_t r = ::read(fds[0], out + got, sizeof t - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got != sizeof t || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !(t >= 0))
    throw std::runtime_error("ring all-reduce: the SimGrid child process failed");
  return t;
}

void check_question(const ClusterTopology& topo, int gpus, double bytes) {
  if (topo.nodes < 1 || topo.gpus_per_node < 1) throw std::invalid_argument("topology: nodes and gpus_per_node >= 1");
  if (gpus < 1 || gpus > topo.gpus())
    throw std::invalid_argument(fmt::format("ring all-reduce: {} GPUs asked, topology has {}", gpus, topo.gpus()));
  if (!(bytes >= 0)) throw std::invalid_argument("ring all-reduce: bytes must be >= 0");
  if (!(topo.intra.bandwidth > 0) || !(topo.inter.bandwidth > 0) || topo.intra.latency < 0 || topo.inter.latency < 0)
    throw std::invalid_argument("topology: bandwidths must be > 0 and latencies >= 0");
}

}  // namespace

std::string ClusterTopology::key() const {
  return fmt::format("{}x{}|{}:{:a}:{:a}|{}:{:a}:{:a}", nodes, gpus_per_node, intra.kind, intra.bandwidth,
                     intra.latency, inter.kind, inter.bandwidth, inter.latency);
}

std::vector<std::string> link_kinds() {
  std::vector<std::string> v;
  for (const LinkPreset& p : presets()) v.push_back(p.kind);
  return v;
}

namespace {

// The link presets' bandwidths and latencies, by preset (presets() order).
constexpr size_t kLinkPresets = 8;
struct NetworkParams {
  std::array<double, kLinkPresets> bandwidth;  // B/s per direction
  std::array<double, kLinkPresets> latency;    // s per ring step
};

const ParamTable<NetworkParams>& network_table() {
  static const ParamTable<NetworkParams> table = [] {
    if (presets().size() != kLinkPresets) throw std::logic_error("kLinkPresets does not count the link presets");
    ParamTable<NetworkParams> t;
    for (size_t i = 0; i < kLinkPresets; ++i) {
      const LinkPreset& p = presets()[i];
      t.add(&NetworkParams::bandwidth, i,
            number_param("network", std::string(p.kind) + "_bandwidth", units::Dim::Bandwidth, p.bandwidth, 1.0,
                         std::numeric_limits<double>::infinity(),
                         std::string(p.kind) + " bandwidth per direction (per GPU port, or per node NIC)",
                         p.bandwidth_source));
      t.add(&NetworkParams::latency, i,
            number_param("network", std::string(p.kind) + "_latency", units::Dim::Time, p.latency, 0.0,
                         std::numeric_limits<double>::infinity(), std::string(p.kind) + " latency of one ring step",
                         p.latency_source));
    }
    return t;
  }();
  return table;
}

}  // namespace

std::vector<ParamSpec> network_params() { return network_table().specs(); }

std::string network_description() {
  return "ring all-reduce over GPUs in nodes (NVLink/PCIe ports) and nodes on a switch (Ethernet/InfiniBand NICs), "
         "simulated with SimGrid CM02 (no cross-traffic); 2(N-1) steps of size/N chunks";
}

LinkSpec link_preset(const std::string& kind) {
  static const NetworkParams defaults = network_table().defaults();
  for (size_t i = 0; i < presets().size(); ++i)
    if (kind == presets()[i].kind) return {kind, defaults.bandwidth[i], defaults.latency[i]};
  throw std::invalid_argument("unknown link kind '" + kind + "'");
}

double ring_allreduce_analytic(const ClusterTopology& topo, int gpus, double bytes) {
  check_question(topo, gpus, bytes);
  const bool crosses_nodes = gpus > topo.gpus_per_node;
  double bw = topo.intra.bandwidth, lat = topo.intra.latency;
  if (crosses_nodes) {
    bw = topo.gpus_per_node > 1 ? std::min(bw, topo.inter.bandwidth) : topo.inter.bandwidth;
    lat = topo.gpus_per_node > 1 ? std::max(lat, topo.inter.latency) : topo.inter.latency;
  }
  return ring_allreduce_analytic(gpus, bytes, bw, lat);
}

double ring_allreduce_time(const ClusterTopology& topo, int gpus, double bytes) {
  check_question(topo, gpus, bytes);
  if (gpus <= 1 || bytes == 0) return gpus <= 1 ? 0.0 : ring_allreduce_analytic(topo, gpus, 0);
  const std::string key = fmt::format("{}|{}|{:a}", topo.key(), gpus, bytes);
  std::lock_guard<std::mutex> lock(g_memo_mutex);
  auto it = g_memo.find(key);
  if (it != g_memo.end()) return it->second;
  const double t = simulate_ring_in_child(topo, gpus, bytes);
  ++g_simgrid_runs;
  g_memo.emplace(key, t);
  return t;
}

int simgrid_runs() {
  std::lock_guard<std::mutex> lock(g_memo_mutex);
  return g_simgrid_runs;
}

}  // namespace vgpusim
