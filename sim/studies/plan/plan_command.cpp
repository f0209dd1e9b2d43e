// Plan orchestration and its outputs. A sharded run writes plan.json holding only its candidates; `merge` joins
// shards and decides.
#include "sim/studies/plan/plan_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "sim/io/files.hpp"
#include "sim/io/yaml_reader.hpp"
#include "sim/report/run_formats.hpp"
#include "sim/report/shard.hpp"
#include "sim/studies/plan/deploy_configs.hpp"

namespace vgpusim {
namespace {

// A candidate's placement: per GPU its replicas, each with its p99 (inference) and SLO margin.
std::string placement_text(const Candidate& c) {
  std::string out = fmt::format("  placement ({}):\n", c.search);
  // By physical GPU (a MIG instance's id is GPU/instance).
  const auto physical = [](const std::string& id) { return id.substr(0, id.find('/')); };
  std::vector<std::string> gpus;
  for (const PlacedReplica& p : c.placement)
    if (std::find(gpus.begin(), gpus.end(), physical(p.gpu)) == gpus.end()) gpus.push_back(physical(p.gpu));
  std::sort(gpus.begin(), gpus.end());
  for (const std::string& g : gpus) {
    out += fmt::format("    {}:", g);
    for (const PlacedReplica& p : c.placement) {
      if (physical(p.gpu) != g) continue;
      out += fmt::format(" {}", p.tenant);
      std::vector<std::string> parts;
      if (!p.profile.empty()) parts.push_back(p.profile);
      if (!std::isnan(p.p99)) parts.push_back(fmt::format("p99 {:.1f} ms", 1e3 * p.p99));
      if (p.has_slo) parts.push_back(fmt::format("margin {:+.0f}%", 100 * p.margin));
      if (!parts.empty()) out += fmt::format(" ({})", fmt::join(parts, ", "));
    }
    out += "\n";
  }
  return out;
}

}  // namespace

std::string plan_table(const std::string& name, const PlanOutcome& o, size_t total) {
  std::string out = fmt::format("plan: {}\ncandidates: {} evaluated of {}\n\n", name, o.candidates.size(), total);
  size_t inst_w = 8, share_w = 7;
  const auto instance = [](const Candidate& c) { return c.spot ? c.instance + " spot" : c.instance; };
  for (const Candidate& c : o.candidates) {
    inst_w = std::max(inst_w, instance(c).size());
    share_w = std::max(share_w, c.sharing.size());
  }
  out += fmt::format("{:>4}  {:<{}} {:>5}  {:<{}} {:>10} {:>9}  {}\n", "#", "instance", inst_w, "count", "sharing",
                     share_w, "$/h", "SLOs met", "notes");
  for (const Candidate& c : o.candidates) {
    const std::string met = c.feasible ? fmt::format("{}/{}", c.slos_met, c.slos) : "-";
    const std::string notes = !c.feasible ? "infeasible: " + c.note : c.meets_all ? "meets every SLO" : c.note;
    out += fmt::format("{:>4}  {:<{}} {:>5}  {:<{}} {:>10.3f} {:>9}  {}\n", c.index, instance(c), inst_w, c.count,
                       c.sharing, share_w, c.cost_per_hour, met, notes);
  }
  if (o.best >= 0) {
    const Candidate& b = o.candidates[static_cast<size_t>(o.best)];
    out += fmt::format("\ncheapest meeting every SLO: #{}: {} x {}, {}, ${:.3f}/h\n", b.index, b.count, instance(b),
                       b.sharing, b.cost_per_hour);
    out += placement_text(b);
    if (o.runner_up >= 0) {
      const Candidate& r = o.candidates[static_cast<size_t>(o.runner_up)];
      out += fmt::format("runner-up: #{}: {} x {}, {}, ${:.3f}/h\n", r.index, r.count, instance(r), r.sharing,
                         r.cost_per_hour);
      out += placement_text(r);
    }
  } else {
    out += "\nno candidate meets every SLO\n";
  }
  out += "Pareto frontier (cost per hour vs fraction of replicas meeting their SLOs):\n";
  for (size_t i : o.pareto) {
    const Candidate& c = o.candidates[i];
    out += fmt::format("  ${:>9.3f}/h  {:>6.1f}%  #{}: {} x {}, {}\n", c.cost_per_hour, 100 * c.attainment(), c.index,
                       c.count, instance(c), c.sharing);
  }
  return out;
}

namespace {


nlohmann::ordered_json placement_json(const Candidate& c) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const PlacedReplica& p : c.placement)
    a.push_back({{"tenant", p.tenant},
                 {"workload", p.workload},
                 {"gpu", p.gpu},
                 {"profile", p.profile},
                 {"has_slo", p.has_slo},
                 {"met", p.met},
                 {"p99_s", number_or_null(p.p99)},
                 {"margin", number_or_null(p.margin)}});
  return a;
}

}  // namespace

std::string plan_json(const std::string& name, const std::string& file, const PlanOutcome& o, size_t total,
                      unsigned shard, unsigned shards) {
  nlohmann::ordered_json j;
  j["schema"] = "vgpusim.plan/1";
  j["plan"] = {{"name", name}, {"file", file}};
  j["shard"] = {{"index", shard}, {"count", shards}};
  j["candidates_total"] = total;
  nlohmann::ordered_json cs = nlohmann::ordered_json::array();
  for (const Candidate& c : o.candidates)
    cs.push_back({{"index", c.index},
                  {"instance", c.instance},
                  {"spot", c.spot},
                  {"count", c.count},
                  {"sharing", c.sharing},
                  {"mode", c.mode},
                  {"gpu", c.gpu},
                  {"gpus_per_instance", c.gpus_per_instance},
                  {"cost_per_hour", c.cost_per_hour},
                  {"feasible", c.feasible},
                  {"slos", c.slos},
                  {"slos_met", c.slos_met},
                  {"meets_all", c.meets_all},
                  {"note", c.note},
                  {"search", c.search},
                  {"placement", placement_json(c)}});
  j["candidates"] = cs;
  j["best"] = o.best >= 0 ? nlohmann::ordered_json(o.candidates[static_cast<size_t>(o.best)].index)
                          : nlohmann::ordered_json(nullptr);
  j["runner_up"] = o.runner_up >= 0 ? nlohmann::ordered_json(o.candidates[static_cast<size_t>(o.runner_up)].index)
                                    : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json p = nlohmann::ordered_json::array();
  for (size_t i : o.pareto) p.push_back(o.candidates[i].index);
  j["pareto"] = p;
  return j.dump(2) + "\n";
}

std::string plan_csv(const PlanOutcome& o) {
  std::string out =
      "index,instance,count,sharing,cost_per_hour,feasible,slos,slos_met,meets_all,best,pareto,runner_up,"
      "min_margin,placement,spot\n";
  for (size_t i = 0; i < o.candidates.size(); ++i) {
    const Candidate& c = o.candidates[i];
    const bool pareto = std::find(o.pareto.begin(), o.pareto.end(), i) != o.pareto.end();
    double min_margin = std::numeric_limits<double>::infinity();
    std::vector<std::string> where;
    for (const PlacedReplica& p : c.placement) {
      if (p.has_slo) min_margin = std::min(min_margin, p.margin);
      where.push_back(fmt::format("{}@{}", p.tenant, p.gpu));
    }
    out += fmt::format("{},{},{},{},{:.6g},{},{},{},{},{},{},{},{},{},{}\n", c.index, csv_field(c.instance),
                       c.count, csv_field(c.sharing), c.cost_per_hour, c.feasible, c.slos, c.slos_met, c.meets_all,
                       o.best == static_cast<long>(i), pareto, o.runner_up == static_cast<long>(i),
                       std::isfinite(min_margin) ? fmt::format("{:.4f}", min_margin) : std::string(),
                       csv_field(fmt::format("{}", fmt::join(where, " "))), c.spot);
  }
  return out;
}

const std::vector<PlanFormat>& plan_formats() {
  static const std::vector<PlanFormat> formats = {
      {"table", "", "the candidates, the cheapest meeting every SLO and the Pareto frontier, on stdout", false,
       [](const PlanReport& r) { return plan_table(r.name, r.outcome, r.total); }},
      {"json", "results.json", "every candidate and the decision (schema vgpusim.plan/1)", false,
       [](const PlanReport& r) { return plan_json(r.name, r.file, r.outcome, r.total, r.shard, r.shards); }},
      {"csv", "results.csv", "one row per candidate", false, [](const PlanReport& r) { return plan_csv(r.outcome); }},
  };
  return formats;
}

namespace {

PlanReport evaluate(const ScenarioDocument& doc, const PlanRun& run) {
  const PlanSpec plan = load_plan(doc, builtin_instance_lookup());
  const auto [shard, count] = resolve_shard(run.shard_flag, run.shards);
  const unsigned threads = run.threads > 0 ? run.threads : std::max(1u, std::thread::hardware_concurrency());
  return {plan.name, doc.file, summarize_plan(evaluate_plan(plan, shard, count, threads)),
          enumerate_candidates(plan).size(), shard, count};
}

// The decision's outputs in DIR: plan.json, plan.csv and, when a candidate meets every SLO, its deployment files
// in DIR/deploy (deploy_configs.hpp).
void write_decision(const std::string& out_dir, const std::string& name, const std::string& file,
                    const PlanOutcome& outcome, size_t total) {
  std::vector<std::pair<std::string, std::string>> files = {
      {fmt::format("{}/plan.json", out_dir), plan_json(name, file, outcome, total, 0, 1)},
      {fmt::format("{}/plan.csv", out_dir), plan_csv(outcome)}};
  const std::vector<DeployFile> deploy =
      outcome.best >= 0 ? deploy_files(name, outcome.candidates[static_cast<size_t>(outcome.best)])
                        : std::vector<DeployFile>{{"README.md", fmt::format("# The plan '{}'\n\nNo candidate meets "
                                                                            "every SLO: nothing to deploy.\n",
                                                                            name)}};
  for (const DeployFile& f : deploy) files.emplace_back(fmt::format("{}/deploy/{}", out_dir, f.name), f.text);
  write_files_atomically(files);
  // An earlier decision's files that this one does not write would read as part of it.
  for (const char* stale : {"mig-parted.yaml", "device-plugin.yaml", "pods.yaml"})
    if (std::none_of(deploy.begin(), deploy.end(), [&](const DeployFile& f) { return f.name == stale; })) {
      std::error_code ignored;
      std::filesystem::remove(std::filesystem::path(out_dir) / "deploy" / stale, ignored);
    }
}

}  // namespace

int plan_command(const ScenarioDocument& doc, const PlanRun& run, const std::string& out_dir, bool quiet) {
  const PlanReport report = evaluate(doc, run);
  if (!out_dir.empty() && report.shards > 1)
    write_file_atomically(fmt::format("{}/{}", out_dir, shard_file_name("plan", report.shard, report.shards)),
                          plan_json(report.name, report.file, report.outcome, report.total, report.shard,
                                    report.shards));
  else if (!out_dir.empty())
    write_decision(out_dir, report.name, report.file, report.outcome, report.total);
  if (!quiet)
    std::cout << (run.json ? plan_json(report.name, report.file, report.outcome, report.total, report.shard,
                                       report.shards)
                           : plan_table(report.name, report.outcome, report.total));
  return 0;
}

int run_plan_command(const ScenarioDocument& doc, const RunOptions& options) {
  if (!options.overrides.empty())
    throw InputError(doc.file + ": --set, --seed and --fidelity do not apply to plan files");
  if (!options.fail_on.empty())
    throw InputError(doc.file + ": --fail-on applies to GPU-level scenarios, not to plan files");
  const PlanReport report = evaluate(doc, PlanRun{});
  write_outputs(select_outputs<PlanReport>(plan_formats(), options), report);
  if (!options.quiet)
    std::cout << stdout_text(plan_formats(), report, options.json,
                             [&] { return plan_table(report.name, report.outcome, report.total); });
  return 0;
}

namespace {

constexpr uint64_t kMaxShardCandidates = 1000000;

}  // namespace

int merge_command(const std::vector<std::string>& parts, const std::string& out_dir) {
  std::vector<Candidate> all;
  std::string name, file, first_part;
  size_t total = 0;
  std::set<size_t> seen;
  for (const std::string& part : parts) {
    const nlohmann::json j = read_shard_json(part, "vgpusim.plan/1");
    const ShardReader r{part};
    const nlohmann::json& plan = r.at(j, "plan", "(top level)");
    const std::string shard_name = r.text(plan, "name", "plan"), shard_file = r.text(plan, "file", "plan");
    const size_t shard_total = r.whole(j, "candidates_total", "(top level)", kMaxShardCandidates);
    // Shards of one plan only: another plan's candidates would be merged under this one's name.
    if (first_part.empty()) {
      first_part = part;
      name = shard_name;
      file = shard_file;
      total = shard_total;
    } else if (shard_name != name || shard_file != file || shard_total != total) {
      throw InputError(fmt::format("{}: a shard of another plan ('{}' from {}, {} candidates) than {} ('{}' from {}, "
                                   "{} candidates)",
                                   part, shard_name, shard_file, shard_total, first_part, name, file, total));
    }
    const nlohmann::json& candidates = r.at(j, "candidates", "(top level)");
    if (!candidates.is_array()) throw InputError(part + ": candidates: expected a list");
    for (size_t i = 0; i < candidates.size(); ++i) {
      const nlohmann::json& c = candidates[i];
      const std::string where = fmt::format("candidates[{}]", i);
      Candidate k;
      k.index = r.whole(c, "index", where, kMaxShardCandidates);
      if (k.index >= total)
        throw InputError(fmt::format("{}: {}.index: {} is not below candidates_total {}", part, where, k.index, total));
      k.instance = r.text(c, "instance", where);
      k.spot = c.contains("spot") && r.flag(c, "spot", where);
      k.count = static_cast<int>(r.whole(c, "count", where, 1000000));
      k.sharing = r.text(c, "sharing", where);
      // Written since the deployment configs (deploy_configs.hpp); a shard without them merges without those.
      if (c.contains("mode")) k.mode = r.text(c, "mode", where);
      if (c.contains("gpu")) k.gpu = r.text(c, "gpu", where);
      if (c.contains("gpus_per_instance"))
        k.gpus_per_instance = static_cast<int>(r.whole(c, "gpus_per_instance", where, 1024));
      k.cost_per_hour = r.number(c, "cost_per_hour", where);
      k.feasible = r.flag(c, "feasible", where);
      k.slos = static_cast<int>(r.whole(c, "slos", where, 1000000));
      k.slos_met = static_cast<int>(r.whole(c, "slos_met", where, static_cast<uint64_t>(k.slos)));
      k.meets_all = r.flag(c, "meets_all", where);
      k.note = r.text(c, "note", where);
      k.search = c.contains("search") ? r.text(c, "search", where) : "";
      if (c.contains("placement")) {
        const nlohmann::json& placement = c.at("placement");
        if (!placement.is_array()) throw InputError(fmt::format("{}: {}.placement: expected a list", part, where));
        for (size_t q = 0; q < placement.size(); ++q) {
          const nlohmann::json& p = placement[q];
          const std::string pw = fmt::format("{}.placement[{}]", where, q);
          PlacedReplica pr;
          pr.tenant = r.text(p, "tenant", pw);
          pr.workload = r.text(p, "workload", pw);
          pr.gpu = r.text(p, "gpu", pw);
          pr.profile = r.text(p, "profile", pw);
          pr.has_slo = r.flag(p, "has_slo", pw);
          pr.met = r.flag(p, "met", pw);
          pr.p99 = r.number_or_nan(p, "p99_s", pw);
          pr.margin = r.number_or_nan(p, "margin", pw);
          k.placement.push_back(pr);
        }
      }
      if (!seen.insert(k.index).second)
        throw InputError(fmt::format("{}: candidate #{} is in two shards", part, k.index));
      all.push_back(k);
    }
  }
  const PlanOutcome outcome = summarize_plan(std::move(all));
  if (outcome.candidates.size() != total)
    std::cerr << fmt::format("vgpusim merge: {} of {} candidates present: shards are missing\n",
                             outcome.candidates.size(), total);
  if (!out_dir.empty()) write_decision(out_dir, name, file, outcome, total);
  std::cout << plan_table(name, outcome, total);
  return 0;
}

}  // namespace vgpusim
