// The listings of `vgpusim list`. They format what the catalogs and the model registry declare.
#include "sim/report/listings.hpp"

#include <fmt/format.h>

#include <map>

#include "models/cluster/placement.hpp"
#include "models/descriptions/model_descriptions.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/instance_catalog.hpp"
#include "sim/io/llm_catalog.hpp"
#include "sim/io/reference_markdown.hpp"
#include "sim/scenario/loader.hpp"

namespace vgpusim {
namespace {

// The heading each family of models is listed under.
std::string family_heading(const std::string& family) {
  static const std::map<std::string, std::string> headings = {
      {"sharing mode",
       "sharing modes (scenario `sharing.<gpu>.mode`; parameters beside `mode`, per-tenant ones under "
       "`tenants[].share`)"},
      {"kernel performance", "kernel performance (per GPU in `gpus[]`)"},
      {"contention", "contention (spatial sharing; its parameters sit beside `mode: mps`)"},
      {"network", "network (collectives between GPUs and nodes, computed with SimGrid)"},
      {"training", "data-parallel training (compute per iteration plus gradient all-reduce)"},
  };
  const auto it = headings.find(family);
  return it == headings.end() ? family : it->second;
}

std::string parameter_lines(const ParamSpec& p) {
  std::string type = p.type_text();
  if (p.per_tenant) type += ", per tenant";
  const std::string range = p.range_text();
  std::string out = fmt::format("    {:<36} {:<28} default {}{}\n", p.qualified(), type, p.default_text(),
                                range.empty() ? "" : fmt::format(", {}", range));
  out += fmt::format("        {}\n        source: {}\n", p.help, p.source);
  return out;
}

}  // namespace

std::string gpus_listing(bool sources) {
  std::string out;
  const Catalog& cat = builtin_catalog();
  using units::Dim;
  auto val = [](const CatalogEntry& e, const char* field, std::string text) {
    return e.uncertain.count(field) ? text + "?" : text;
  };
  out += fmt::format("{:<12} {:<7} {:>5} {:>10} {:>13} {:>14} {:>11} {:>12} {:>10} {:>4}\n", "name", "vendor", "units",
                     "clock", "fp32", "fp16 tensor", "memory", "bandwidth", "L2", "MIG");
  for (const CatalogEntry& e : cat.gpus) {
    const GpuSpec& s = e.spec;
    out += fmt::format("{:<12} {:<7} {:>5} {:>10} {:>13} {:>14} {:>11} {:>12} {:>10} {:>4}\n", s.name, s.vendor,
                       val(e, "compute_units", fmt::format("{:g}", s.compute_units)),
                       val(e, "boost_clock", units::format(s.boost_clock, Dim::Frequency)),
                       val(e, "fp32", units::format(s.fp32, Dim::FlopRate)),
                       val(e, "fp16_tensor", units::format(s.fp16_tensor, Dim::FlopRate)),
                       val(e, "memory", units::format(s.memory, Dim::Bytes)),
                       val(e, "memory_bandwidth", units::format(s.memory_bandwidth, Dim::Bandwidth)),
                       val(e, "l2_cache", units::format(s.l2_cache, Dim::Bytes)), s.mig ? "yes" : "no");
  }
  out += fmt::format("\n? = uncertain value (see `vgpusim list gpus --sources`). Catalog: models/catalog/gpus.yaml\n");
  if (!sources) return out;
  for (const CatalogEntry& e : cat.gpus) {
    out += fmt::format("\n{} ({} {}){}\n", e.spec.name, e.spec.vendor, e.spec.architecture,
                       e.notes.empty() ? "" : ": " + e.notes);
    for (const auto& [field, src] : e.source) {
      out += fmt::format("  {:<17} {}\n", field, cat.sources.at(src));
      if (e.uncertain.count(field)) out += fmt::format("  {:<17} uncertain: {}\n", "", e.uncertain.at(field));
    }
  }
  return out;
}

std::string llm_models_listing(bool sources) {
  using units::Dim;
  std::string out = fmt::format("{:<14} {:>6} {:>6} {:>5} {:>8} {:>12} {:>7} {:>5} {:>9} {:>10} {:>13}\n", "name",
                                "layers", "hidden", "heads", "kv_heads", "intermediate", "vocab", "gated",
                                "max_len", "weights", "KV per token");
  for (const LlmModelEntry& e : builtin_llm_models()) {
    const LlmShape& s = e.shape;
    out += fmt::format("{:<14} {:>6} {:>6g} {:>5g} {:>8g} {:>12g} {:>7g} {:>5} {:>9g} {:>10} {:>13}\n", s.name,
                       s.layers, s.hidden, s.heads, s.kv_heads, s.intermediate, s.vocab, s.gated_mlp ? "yes" : "no",
                       e.max_position, units::format(s.weight_bytes(), Dim::Bytes),
                       units::format(s.kv_bytes_per_token(1), Dim::Bytes));
  }
  out += "\nWeights in bf16/fp16, embedding and LM head untied; KV cache for keys and values of every layer. Catalog: "
         "models/catalog/llm_models.yaml\n";
  if (sources)
    for (const LlmModelEntry& e : builtin_llm_models())
      out += fmt::format("{}: {}{}\n", e.shape.name, e.source,
                         e.vidur.empty() ? "" : fmt::format(" (Vidur profile: {})", e.vidur));
  return out;
}

std::string instances_listing(bool sources) {
  std::string out;
  const InstanceCatalog& cat = builtin_instance_catalog();
  using units::Dim;
  auto val = [](const Instance& i, const char* field, std::string text) {
    return i.uncertain.count(field) ? text + "?" : text;
  };
  out += fmt::format("{:<15} {:<8} {:>17} {:>6} {:>10} {:>10} {:>12} {:>11}\n", "name", "provider", "GPUs", "vCPU",
                     "memory", "network", "on-demand", "spot off");
  for (const Instance& i : cat.instances) {
    out += fmt::format(
        "{:<15} {:<8} {:>17} {:>6} {:>10} {:>10} {:>12} {:>11}\n", i.name, i.provider,
        val(i, i.uncertain.count("gpu_model") ? "gpu_model" : "gpu_count",
            fmt::format("{:g} x {}", i.gpu_count, i.gpu_model)),
        fmt::format("{:g}", i.vcpus), val(i, "memory", units::format(i.memory, Dim::Bytes)),
        i.network > 0 ? val(i, "network", fmt::format("{:g} Gbps", i.network * 8 / 1e9)) : "-",
        val(i, "on_demand", fmt::format("${:.3f}/h", i.on_demand * 3600)),
        val(i, "spot_discount", fmt::format("{:.0f}-{:.0f}%", 100 * i.spot_discount_min, 100 * i.spot_discount_max)));
  }
  out += fmt::format(
      "\n? = uncertain value (see `vgpusim list instances --sources`). Prices are per hour in the region and on "
      "the date given with --sources; they change. Catalog: models/catalog/instances.yaml\n");
  if (!sources) return out;
  for (const Instance& i : cat.instances) {
    out += fmt::format("\n{} ({}, {}, price read {}){}\n", i.name, i.provider, i.region, i.price_date,
                       i.notes.empty() ? "" : ": " + i.notes);
    for (const auto& [field, src] : i.source) {
      out += fmt::format("  {:<14} {}\n", field, cat.sources.at(src));
      if (i.uncertain.count(field)) out += fmt::format("  {:<14} uncertain: {}\n", "", i.uncertain.at(field));
    }
  }
  return out;
}

std::string models_listing() {
  std::string out =
      "Parameters are named model.parameter: a scenario sets `slice` beside `mode: timeslice`, a "
      "calibration file sets `timeslice.slice`.\n";
  std::string family;
  for (const ModelDescription& m : model_descriptions()) {
    if (m.family != family) {
      family = m.family;
      out += fmt::format("\n{}:\n", family_heading(family));
    }
    out += fmt::format("\n  {} - {}\n    citation: {}\n", m.name, m.description, m.citation);
    if (!m.note.empty()) out += fmt::format("    {}\n", m.note);
    if (m.params.empty()) out += "    no parameters\n";
    for (const ParamSpec& p : m.params) out += parameter_lines(p);
  }
  out += "\ncluster placement policies (cluster scenarios, `cluster.policy`):\n";
  for (const PlacementPolicyInfo& p : placement_policies())
    out += fmt::format("\n  {} - {}\n    citation: {}\n", p.name, p.description, p.citation);
  return out;
}

std::string models_markdown(const std::string& model) {
  std::string out;
  std::vector<std::string> names;
  for (const ModelDescription& m : model_descriptions()) {
    names.push_back(m.name);
    if (model.empty() || m.name == model)
      out += fmt::format("{}{}", out.empty() ? "" : "\n", model_parameters_block(m));
  }
  if (out.empty())
    throw InputError(
        fmt::format("no model '{}'{} (see `vgpusim list models`)", model, did_you_mean_suffix(model, names)));
  return out;
}

std::string keys_listing(const std::vector<Section>& sections) {
  std::string out;
  for (const Section& s : sections)
    for (const KeySpec& k : s.keys) out += fmt::format("{}{}{}\n", s.path, s.path.empty() ? "" : ".", k.name);
  return out;
}

}  // namespace vgpusim
