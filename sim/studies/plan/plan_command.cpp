// Plan orchestration and its outputs. A sharded run writes plan.json holding only its candidates; `merge` joins
// shards and decides.
#include "sim/studies/plan/plan_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "sim/io/files.hpp"
#include "sim/io/yaml_reader.hpp"

namespace vgpusim {
namespace {

unsigned parse_unsigned(const std::string& text, const std::string& what) {
  try {
    size_t used = 0;
    const unsigned long v = std::stoul(text, &used);
    if (used == text.size()) return static_cast<unsigned>(v);
  } catch (const std::exception&) {
  }
  throw InputError(fmt::format("{}: expected a non-negative integer, found '{}'", what, text));
}

}  // namespace

std::pair<unsigned, unsigned> resolve_shard(const std::string& flag, unsigned shards) {
  unsigned index = 0, count = 1;
  if (!flag.empty()) {
    const auto slash = flag.find('/');
    if (slash == std::string::npos) throw InputError("--shard " + flag + ": expected I/N, e.g. 0/8");
    index = parse_unsigned(flag.substr(0, slash), "--shard");
    count = parse_unsigned(flag.substr(slash + 1), "--shard");
  } else if (const char* slurm = std::getenv("SLURM_ARRAY_TASK_ID")) {
    index = parse_unsigned(slurm, "SLURM_ARRAY_TASK_ID");
    const char* n = std::getenv("SLURM_ARRAY_TASK_COUNT");
    count = n ? parse_unsigned(n, "SLURM_ARRAY_TASK_COUNT") : shards;
  } else if (const char* k8s = std::getenv("JOB_COMPLETION_INDEX")) {
    index = parse_unsigned(k8s, "JOB_COMPLETION_INDEX");
    count = shards;
  } else {
    return {0, 1};
  }
  if (count == 0 || index >= count)
    throw InputError(fmt::format("shard {} of {}: expected 0 <= I < N (give --shards N with a job index)", index, count));
  return {index, count};
}

std::string plan_table(const std::string& name, const PlanOutcome& o, size_t total) {
  std::string out = fmt::format("plan: {}\ncandidates: {} evaluated of {}\n\n", name, o.candidates.size(), total);
  size_t inst_w = 8, share_w = 7;
  for (const Candidate& c : o.candidates) {
    inst_w = std::max(inst_w, c.instance.size());
    share_w = std::max(share_w, c.sharing.size());
  }
  out += fmt::format("{:>4}  {:<{}} {:>5}  {:<{}} {:>10} {:>9}  {}\n", "#", "instance", inst_w, "count", "sharing",
                     share_w, "$/h", "SLOs met", "notes");
  for (const Candidate& c : o.candidates) {
    const std::string met = c.feasible ? fmt::format("{}/{}", c.slos_met, c.slos) : "-";
    const std::string notes = !c.feasible ? "infeasible: " + c.note : c.meets_all ? "meets every SLO" : c.note;
    out += fmt::format("{:>4}  {:<{}} {:>5}  {:<{}} {:>10.3f} {:>9}  {}\n", c.index, c.instance, inst_w, c.count,
                       c.sharing, share_w, c.cost_per_hour, met, notes);
  }
  if (o.best >= 0) {
    const Candidate& b = o.candidates[static_cast<size_t>(o.best)];
    out += fmt::format("\ncheapest meeting every SLO: #{}: {} x {}, {}, ${:.3f}/h\n", b.index, b.count, b.instance,
                       b.sharing, b.cost_per_hour);
  } else {
    out += "\nno candidate meets every SLO\n";
  }
  out += "Pareto frontier (cost per hour vs fraction of replicas meeting their SLOs):\n";
  for (size_t i : o.pareto) {
    const Candidate& c = o.candidates[i];
    out += fmt::format("  ${:>9.3f}/h  {:>6.1f}%  #{}: {} x {}, {}\n", c.cost_per_hour, 100 * c.attainment(), c.index,
                       c.count, c.instance, c.sharing);
  }
  return out;
}

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
                  {"count", c.count},
                  {"sharing", c.sharing},
                  {"cost_per_hour", c.cost_per_hour},
                  {"feasible", c.feasible},
                  {"slos", c.slos},
                  {"slos_met", c.slos_met},
                  {"meets_all", c.meets_all},
                  {"note", c.note}});
  j["candidates"] = cs;
  j["best"] = o.best >= 0 ? nlohmann::ordered_json(o.candidates[static_cast<size_t>(o.best)].index)
                          : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json p = nlohmann::ordered_json::array();
  for (size_t i : o.pareto) p.push_back(o.candidates[i].index);
  j["pareto"] = p;
  return j.dump(2) + "\n";
}

std::string plan_csv(const PlanOutcome& o) {
  std::string out = "index,instance,count,sharing,cost_per_hour,feasible,slos,slos_met,meets_all,best,pareto\n";
  for (size_t i = 0; i < o.candidates.size(); ++i) {
    const Candidate& c = o.candidates[i];
    const bool pareto = std::find(o.pareto.begin(), o.pareto.end(), i) != o.pareto.end();
    out += fmt::format("{},{},{},\"{}\",{:.6g},{},{},{},{},{},{}\n", c.index, c.instance, c.count, c.sharing,
                       c.cost_per_hour, c.feasible, c.slos, c.slos_met, c.meets_all,
                       o.best == static_cast<long>(i), pareto);
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

}  // namespace

int plan_command(const ScenarioDocument& doc, const PlanRun& run, const std::string& out_dir, bool quiet) {
  const PlanReport report = evaluate(doc, run);
  if (!out_dir.empty()) {
    const std::string name =
        report.shards > 1 ? fmt::format("plan-shard-{}-of-{}.json", report.shard, report.shards) : "plan.json";
    write_atomically(out_dir, name,
                     plan_json(report.name, report.file, report.outcome, report.total, report.shard, report.shards));
  }
  if (!quiet) std::cout << plan_table(report.name, report.outcome, report.total);
  return 0;
}

int run_plan_command(const ScenarioDocument& doc, const RunOptions& options) {
  if (!options.overrides.empty())
    throw InputError(doc.file + ": --set, --seed and --fidelity do not apply to plan files");
  if (!options.fail_on.empty())
    throw InputError(doc.file + ": --fail-on applies to GPU-level scenarios, not to plan files");
  const PlanReport report = evaluate(doc, PlanRun{});
  write_outputs(select_outputs<PlanReport>(plan_formats(), options), report);
  if (!options.quiet) std::cout << plan_table(report.name, report.outcome, report.total);
  return 0;
}

int merge_command(const std::vector<std::string>& parts, const std::string& out_dir) {
  std::vector<Candidate> all;
  std::string name, file;
  size_t total = 0;
  for (const std::string& part : parts) {
    const std::string text = read_text_file(part, "plan shard");
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(fmt::format("{}: not JSON: {}", part, e.what()));
    }
    if (j.value("schema", "") != "vgpusim.plan/1") throw InputError(part + ": expected schema vgpusim.plan/1");
    name = j["plan"].value("name", "");
    file = j["plan"].value("file", "");
    total = j.value("candidates_total", size_t{0});
    for (const auto& c : j["candidates"]) {
      Candidate k;
      k.index = c["index"];
      k.instance = c["instance"];
      k.count = c["count"];
      k.sharing = c["sharing"];
      k.cost_per_hour = c["cost_per_hour"];
      k.feasible = c["feasible"];
      k.slos = c["slos"];
      k.slos_met = c["slos_met"];
      k.meets_all = c["meets_all"];
      k.note = c["note"];
      for (const Candidate& seen : all)
        if (seen.index == k.index) throw InputError(fmt::format("{}: candidate #{} is in two shards", part, k.index));
      all.push_back(k);
    }
  }
  const PlanOutcome outcome = summarize_plan(std::move(all));
  if (outcome.candidates.size() != total)
    std::cerr << fmt::format("vgpusim merge: {} of {} candidates present: shards are missing\n",
                             outcome.candidates.size(), total);
  if (!out_dir.empty()) write_atomically(out_dir, "plan.json", plan_json(name, file, outcome, total, 0, 1));
  std::cout << plan_table(name, outcome, total);
  return 0;
}

}  // namespace vgpusim
