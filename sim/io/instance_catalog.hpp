// The cloud instance catalog: models/catalog/instances.yaml (compiled in) or a user's file, read into Instances with
// each value's source, its date where it is a price, and, where the source is shaky, why.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace vgpusim {

struct Catalog;

struct Instance {
  std::string name;      // provider's type name, e.g. "p4d.24xlarge"
  std::string provider;  // aws | gcp | azure
  std::string notes;
  std::string gpu_model;     // a GPU catalog name, e.g. "A100-40GB"
  double gpu_count = 0;      // GPUs; fractional for SR-IOV slices (Azure NVv4: 1/8 .. 1)
  double vcpus = 0;          // count
  double memory = 0;         // bytes of host RAM
  double network = 0;        // bytes/s; 0 = not published
  std::string region;        // where on_demand applies
  double on_demand = 0;      // US dollars per second
  std::string price_date;    // when on_demand was read, e.g. "2024-06"
  double spot_discount_min = 0;  // fraction off on-demand
  double spot_discount_max = 0;  // fraction off on-demand
  std::map<std::string, std::string> source;     // field -> source key
  std::map<std::string, std::string> uncertain;  // field -> reason
};

struct InstanceCatalog {
  std::map<std::string, std::string> sources;  // key -> citation
  std::vector<Instance> instances;             // file order

  const Instance* find(const std::string& name) const;
};

// Parses instance-catalog text; `file` names it in messages; every gpu_model must be in `gpus`. Throws InputError.
InstanceCatalog parse_instance_catalog(const std::string& text, const std::string& file, const Catalog& gpus);
// The catalog shipped in models/catalog/instances.yaml, checked against the built-in GPU catalog.
const InstanceCatalog& builtin_instance_catalog();

}  // namespace vgpusim
