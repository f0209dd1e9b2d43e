// Bad scenarios: each case asserts the exact message, with FILE:LINE:COL and the key path.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "sim/io/gpu_catalog.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/studies/cluster/cluster_scenario.hpp"
#include "tests/unit/scenario_helpers.hpp"

namespace unit_scenario_errors {

using namespace vgpusim;

namespace {

const char* kGood = R"(version: 1
name: good
duration: 10s
gpus:
  - {id: g0, model: H100-SXM}
sharing:
  g0: {mode: timeslice, slice: 2ms}
tenants:
  - name: a
    on: g0
    memory: 10GiB
    workload:
      training: {step: {flops: 1TFLOP, bytes: 1GB}}
)";

// Replaces the first occurrence of `from` in the good scenario by `to`.
std::string variant(const std::string& from, const std::string& to) {
  std::string s = kGood;
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

std::string error_of(const std::string& text, std::vector<Override> overrides = {}) {
  try {
    load_scenario_text(text, "s.yaml", builtin_catalog(), overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

// The parameter type is outside the anonymous namespace: the test class derived from it is not (GCC's
// -Wsubobject-linkage, in a unity batch).
struct Case {
  std::string name, from, to, message;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

TEST(ScenarioErrors, GoodScenarioLoads) {
  const Scenario sc = load_scenario_text(kGood, "s.yaml", builtin_catalog());
  EXPECT_EQ(sc.tenants.size(), 1u);
  EXPECT_EQ(sc.sharing[0].mode_name(), "timeslice");
  EXPECT_DOUBLE_EQ(sc.sharing[0].params.get("slice"), 2e-3);
  EXPECT_DOUBLE_EQ(sc.tenants[0].memory, 10.0 * (1 << 30));
}

class BadScenario : public ::testing::TestWithParam<Case> {};

TEST_P(BadScenario, GivesTheExactMessage) {
  const Case& c = GetParam();
  EXPECT_EQ(error_of(variant(c.from, c.to)), c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadScenario,
    ::testing::Values(
        Case{"misspelled_top_key", "duration: 10s", "duratoin: 10s",
             "s.yaml:3:1: duratoin: unknown key 'duratoin'; did you mean 'duration'? (known keys: version, name, seed, "
             "replications, start_jitter, duration, fidelity, gpus, sharing, tenants, host, faults, compare, metrics)"},
        Case{"misspelled_tenant_key", "memory: 10GiB", "memroy: 10GiB",
             "s.yaml:11:5: tenants[0].memroy: unknown key 'memroy'; did you mean 'memory'? (known keys: name, on, "
             "memory, start, stream, share, host_threads, workload)"},
        Case{"time_without_unit", "duration: 10s", "duration: 10",
             "s.yaml:3:11: duration: expected a time such as '2ms', found '10'"},
        Case{"bad_size_unit", "memory: 10GiB", "memory: 10 gigs",
             "s.yaml:11:13: tenants[0].memory: expected a size such as '80GiB', found '10 gigs'"},
        Case{"missing_name", "name: good\n", "",
             "s.yaml:1:1: (top level): missing required key 'name' in the top level"},
        Case{"missing_workload_key", "    workload:\n      training: {step: {flops: 1TFLOP, bytes: 1GB}}\n", "",
             "s.yaml:9:5: tenants[0]: missing required key 'workload' in tenants[0]"},
        Case{"missing_step", "training: {step: {flops: 1TFLOP, bytes: 1GB}}", "training: {iterations: 3}",
             "s.yaml:13:17: tenants[0].workload.training: missing required key 'step' in tenants[0].workload.training"},
        Case{"unknown_gpu_model", "model: H100-SXM", "model: H100-SMX",
             "s.yaml:5:21: gpus[0].model: unknown GPU model 'H100-SMX'; did you mean 'H100-SXM'? (see `vgpusim list "
             "gpus`)"},
        Case{"unknown_gpu_id", "on: g0", "on: g1",
             "s.yaml:10:9: tenants[0].on: no GPU or partition with id 'g1'; did you mean 'g0'?"},
        Case{"unknown_sharing_mode", "mode: timeslice", "mode: timeslcie",
             "s.yaml:7:14: sharing.g0.mode: unknown sharing mode 'timeslcie'; did you mean 'timeslice'? (see `vgpusim "
             "list models`)"},
        Case{"unknown_sharing_param", "slice: 2ms", "slise: 2ms",
             "s.yaml:7:25: sharing.g0.slise: unknown key 'slise'; did you mean 'slice'? (known keys: mode, slice, "
             "switch_cost, idle_switch_cost, idle_grace)"},
        Case{"param_out_of_range", "slice: 2ms", "slice: 20s",
             "s.yaml:7:32: sharing.g0.slice: expected a value from 1 us to 10 s, found 20 s"},
        Case{"bad_fidelity", "duration: 10s", "duration: 10s\nfidelity: exactly",
             "s.yaml:4:11: fidelity: expected one of exact, fluid, found 'exactly'; did you mean 'exact'?"},
        // Found by the libFuzzer target: a YAML exception escaped as an internal error.
        Case{"mig_without_partitions", "{mode: timeslice, slice: 2ms}", "{mode: mig}",
             "s.yaml:7:7: sharing.g0.partitions: mode mig partitions the GPU: give its `partitions`, a list of {id, "
             "profile}"},
        Case{"wrong_version", "version: 1", "version: 2", "s.yaml:1:10: version: expected an integer from 1 to 1, found 2"},
        Case{"duplicate_key", "version: 1", "version: 1\nversion: 1",
             "s.yaml:2:1: version: duplicate key 'version' (first at line 1)"},
        Case{"second_document", "version: 1", "version: 1\n---\nversion: 1",
             "s.yaml:2:1: a second YAML document (after '---'); a file holds one"},
        Case{"two_workload_kinds", "training: {step: {flops: 1TFLOP, bytes: 1GB}}",
             "training: {step: {flops: 1TFLOP}}\n      render: {frame: {flops: 1GFLOP}}",
             "s.yaml:13:7: tenants[0].workload: expected exactly one workload kind, found training and render"},
        Case{"no_workload_kind", "training: {step: {flops: 1TFLOP, bytes: 1GB}}", "trainig: {}",
             "s.yaml:13:7: tenants[0].workload.trainig: unknown key 'trainig'; did you mean 'training'? (known keys: "
             "kernels, training, inference, render, trace, measured, llm, graph)"},
        Case{"empty_kernel", "step: {flops: 1TFLOP, bytes: 1GB}", "step: {blocks: 4}",
             "s.yaml:13:24: tenants[0].workload.training.step: expected some work: flops, fp16, fp32, fp64, bytes or "
             "duration"},
        Case{"duration_and_work", "step: {flops: 1TFLOP, bytes: 1GB}", "step: {flops: 1TFLOP, duration: 2ms}",
             "s.yaml:13:24: tenants[0].workload.training.step: give either `duration` (with `on` and `bound`) or work "
             "(flops, bytes), not both"},
        Case{"working_set_with_duration", "step: {flops: 1TFLOP, bytes: 1GB}",
             "step: {duration: 2ms, working_set: 10MB}",
             "s.yaml:13:53: tenants[0].workload.training.step.working_set: `working_set` goes with work (bytes): a "
             "measured duration already holds what L2 did"},
        Case{"threads_with_duration", "step: {flops: 1TFLOP, bytes: 1GB}", "step: {duration: 2ms, threads: 256}",
             "s.yaml:13:49: tenants[0].workload.training.step.threads: `threads` goes with work (flops, bytes): a "
             "measured duration already holds its occupancy"},
        Case{"threads_too_many", "step: {flops: 1TFLOP, bytes: 1GB}", "step: {bytes: 1GB, threads: 2048}",
             "s.yaml:13:46: tenants[0].workload.training.step.threads: expected an integer from 1 to 1024, found 2048"},
        Case{"bad_launch", "step: {flops: 1TFLOP, bytes: 1GB}", "step: {bytes: 1GB, launch: graphs}",
             "s.yaml:13:45: tenants[0].workload.training.step.launch: expected one of stream, graph, persistent, "
             "found 'graphs'; did you mean 'graph'?"},
        Case{"working_set_zero", "step: {flops: 1TFLOP, bytes: 1GB}", "step: {bytes: 1GB, working_set: 0B}",
             "s.yaml:13:50: tenants[0].workload.training.step.working_set: expected a positive size"},
        Case{"bad_precision", "step: {flops: 1TFLOP, bytes: 1GB}", "step: {flops: 1TFLOP, precision: fp8}",
             "s.yaml:13:51: tenants[0].workload.training.step.precision: expected one of fp16, fp32, fp64, found 'fp8'; did you mean 'fp16'?"},
        Case{"negative_iterations", "training: {step:", "training: {iterations: -3, step:",
             "s.yaml:13:30: tenants[0].workload.training.iterations: expected an integer from 0 to 1125899906842624, "
             "found -3"},
        Case{"unbounded_without_duration", "duration: 10s\n", "",
             "s.yaml:12:7: tenants[0].workload: this workload has no count, so it runs until the scenario ends, but "
             "the scenario has no `duration`"},
        Case{"passthrough_with_one_tenant_is_fine", "mode: timeslice, slice: 2ms", "mode: passthrough",
             "(no error)"},
        Case{"duplicate_gpu_id", "  - {id: g0, model: H100-SXM}", "  - {id: g0, model: H100-SXM}\n  - {id: g0, model: T4}",
             "s.yaml:6:10: gpus[1].id: duplicate GPU id 'g0'"},
        Case{"gpus_not_a_list", "gpus:\n  - {id: g0, model: H100-SXM}", "gpus: H100",
             "s.yaml:4:7: gpus: expected a non-empty list of GPUs"},
        Case{"yaml_syntax", "name: good", "name: [good", "s.yaml:3:9: YAML syntax error: end of sequence flow not found"},
        Case{"inference_rate_unit", "training: {step: {flops: 1TFLOP, bytes: 1GB}}",
             "inference: {rate: 40, request: {flops: 1TFLOP}}",
             "s.yaml:13:25: tenants[0].workload.inference.rate: expected a rate such as '40/s', found '40'"},
        Case{"slo_unknown_percentile", "training: {step: {flops: 1TFLOP, bytes: 1GB}}",
             "inference: {rate: 40/s, request: {flops: 1TFLOP}, slo: {p98: 10ms}}",
             "s.yaml:13:63: tenants[0].workload.inference.slo.p98: unknown key 'p98'; did you mean 'p90'? (known keys: "
             "p50, p90, p95, p99, p999)"},
        Case{"catalog_override_wrong_unit", "{id: g0, model: H100-SXM}", "{id: g0, model: H100-SXM, memory_bandwidth: 3TB}",
             "s.yaml:5:49: gpus[0].memory_bandwidth: expected a bandwidth such as '4.8TB/s', found '3TB'"}),
    [](const ::testing::TestParamInfo<Case>& p) { return p.param.name; });

TEST(ScenarioErrors, AnAliasInsideItsOwnAnchorOrNestedAliasesDoNotHangTheReader) {
  // A loop (the alias inside the node it names) is refused; nested aliases are not expanded while checking keys.
  EXPECT_EQ(testing_support::error_of("version: 1\nname: &x [*x]\n", "s.yaml"),
            "s.yaml:2:11: name[0]: an alias inside the node it names (a loop)");
  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'p'; ++c) {
    const std::string prev(1, static_cast<char>(c - 1)), self(1, c);
    std::string list;
    for (int i = 0; i < 10; ++i) list += (i ? ", *" : "*") + prev;
    laughs += self + ": &" + self + " [" + list + "]\n";
  }
  const std::string e = testing_support::error_of(laughs, "s.yaml");
  EXPECT_NE(e.find("unknown key"), std::string::npos) << e;  // refused by the loader, promptly
  // A duplicate key deep inside names its path.
  EXPECT_EQ(testing_support::error_of("version: 1\ngpus:\n  - {id: g0, model: A100-80GB, model: T4}\n", "s.yaml"),
            "s.yaml:3:32: gpus[0].model: duplicate key 'model' (first at line 3)");
}

TEST(ScenarioErrors, ADirectoryOrADeviceIsNotAScenarioFile) {
  for (const auto& [path, what] : {std::pair<std::string, std::string>{testing::TempDir(), "is a directory, not a file"},
                                   {"/dev/zero", "is over the 64 MiB that text inputs may hold"}}) {
    try {
      load_scenario_file(path, builtin_catalog());
      ADD_FAILURE() << path;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), path + ": the scenario file " + what);
    }
  }
}

TEST(ScenarioErrors, SecondTenantOnPassthroughIsRefused) {
  std::string s = variant("mode: timeslice, slice: 2ms", "mode: passthrough");
  s += "  - {name: b, on: g0, workload: {training: {step: {flops: 1TFLOP}}}}\n";
  EXPECT_EQ(error_of(s),
            "s.yaml:14:19: tenants[1].on: 'g0' is shared in mode 'passthrough', which takes at most 1 tenant(s); "
            "use a sharing mode such as timeslice to put several tenants on it");
}

TEST(ScenarioErrors, DuplicateTenantName) {
  std::string s = kGood;
  s += "  - {name: a, on: g0, workload: {training: {step: {flops: 1TFLOP}}}}\n";
  EXPECT_EQ(error_of(s), "s.yaml:14:12: tenants[1].name: duplicate tenant name 'a'");
}

// A name with bytes that are not UTF-8 (found by fuzzing: it used to end in an internal JSON error when results were
// written) is refused where it stands; valid UTF-8 of any script is kept as it is.
TEST(ScenarioErrors, NamesThatAreNotUtf8AreRefusedAtTheirPlace) {
  const auto with_name = [](const std::string& name) {
    return std::string(kGood) + "  - {name: " + name + ", on: g0, workload: {training: {step: {flops: 1TFLOP}}}}\n";
  };
  EXPECT_EQ(error_of(with_name("b\xff")),
            "s.yaml:14:12: tenants[1].name: expected UTF-8 text; the string is not valid UTF-8 from its byte 2 (0xFF)");
  // Overlong, a surrogate, beyond U+10FFFF, cut short.
  for (const char* bad : {"b\xc0\xaf", "b\xed\xa0\x80", "b\xf4\x90\x80\x80", "ok\xe2\x82"})
    EXPECT_NE(error_of(with_name(bad)).find("not valid UTF-8"), std::string::npos) << error_of(with_name(bad));
  EXPECT_EQ(error_of(with_name("b-\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80")), "(no error)");
}

TEST(ScenarioErrors, OverridesApplyAndTheirErrorsSayso) {
  const Scenario sc = load_scenario_text(kGood, "s.yaml", builtin_catalog(),
                                         {parse_override("sharing.g0.slice=4ms"), parse_override("tenants.a.memory=1GiB"),
                                          parse_override("tenants[0].workload.training.iterations=5")});
  EXPECT_DOUBLE_EQ(sc.sharing[0].params.get("slice"), 4e-3);
  EXPECT_DOUBLE_EQ(sc.tenants[0].memory, 1 << 30);
  EXPECT_EQ(error_of(kGood, {parse_override("sharing.g0.slice=4")}),
            "s.yaml (--set): sharing.g0.slice: expected a time such as '2ms', found '4'");
  EXPECT_EQ(error_of(kGood, {parse_override("tenants.zed.memory=1GiB")}), "--set tenants.zed.memory: no list element 'zed'");
  EXPECT_THROW(parse_override("novalue"), InputError);
}

// Key defaults live in the key tables: an absent key takes its KeySpec's default_value, which the reference prints.
TEST(KeyDefaults, AnAbsentKeyTakesItsDeclaredDefault) {
  const Section s{"test",
                  "",
                  {{"n", "integer", false, "3", ""},
                   {"t", "time", false, "2 ms", ""},
                   {"c", "a | b", false, "b", ""},
                   {"f", "boolean", false, "true", ""},
                   {"bad", "time", false, "soon", ""},
                   {"need", "time", true, "", ""},
                   {"computed", "time", false, "", "", "something the reader works out"}}};
  const YAML::Node empty(YAML::NodeType::Map);
  const MapReader r("f.yaml", empty, "x", s);
  EXPECT_EQ(r.integer("n", 0, 10), 3);
  EXPECT_DOUBLE_EQ(r.quantity("t", units::Dim::Time), 2e-3);
  EXPECT_EQ(r.choice("c", {"a", "b"}), "b");
  EXPECT_TRUE(r.boolean("f"));
  EXPECT_THROW(r.quantity("bad", units::Dim::Time), std::logic_error);  // a default that is not a time: a bug
  EXPECT_THROW(r.integer("n", 5, 10), std::logic_error);                // a default out of the reader's bounds
  EXPECT_THROW(r.quantity("need", units::Dim::Time), InputError);       // required: "missing required key"
  EXPECT_THROW(r.quantity("computed", units::Dim::Time), InputError);   // no value: the reader computes it
  EXPECT_EQ(s.keys.back().documented_default(), "something the reader works out");
}

TEST(KeyDefaults, AMinimalScenarioGetsTheDefaultsTheReferencePrints) {
  const Scenario sc = load_scenario_text(
      "version: 1\nname: d\ngpus: [{id: g0, model: H100-SXM}]\n"
      "tenants: [{name: a, on: g0, workload: {training: {iterations: 1, step: {flops: 1TFLOP}}}}]\n",
      "d.yaml", builtin_catalog());
  const std::vector<Section> sections = scenario_sections();
  const auto default_of = [&](const std::string& section, const std::string& key) {
    for (const Section& s : sections)
      if (s.path == section)
        for (const KeySpec& k : s.keys)
          if (k.name == key) return k.default_value;
    ADD_FAILURE() << section << "." << key;
    return std::string();
  };
  EXPECT_EQ(std::to_string(sc.seed), default_of("", "seed"));
  EXPECT_EQ(sc.fidelity == Fidelity::Exact ? "exact" : "fluid", default_of("", "fidelity"));
  EXPECT_EQ(units::format(sc.tenants[0].memory, units::Dim::Bytes), default_of("tenants[]", "memory"));
  EXPECT_EQ(std::to_string(sc.replications), default_of("", "replications"));
  EXPECT_EQ(units::format(sc.tenants[0].start_distribution.b, units::Dim::Time), default_of("", "start_jitter"));
  EXPECT_TRUE(sc.tenants[0].start_distribution.kind == Distribution::Kind::Uniform &&
              sc.tenants[0].start_distribution.a == 0);
  const auto& training = dynamic_cast<const TrainingWorkload&>(*sc.tenants[0].workload);
  EXPECT_EQ(std::to_string(training.kernels_per_step), default_of("workload.training", "kernels_per_step"));
  EXPECT_TRUE(training.host_time.is_constant());
  EXPECT_EQ(units::format(training.host_time.a, units::Dim::Time), default_of("workload.training", "host_time"));
}

// A default_value is a value a file could hold (a number, a quantity with its unit, true or false, one of the key's
// listed words, or one word), never prose: prose belongs in default_text, for a default the reader computes.
TEST(KeyDefaults, EveryDeclaredDefaultValueIsAValue) {
  std::vector<Section> sections = scenario_sections();
  for (const Section& s : cluster_sections()) sections.push_back(s);
  size_t checked = 0;
  for (const Section& s : sections)
    for (const KeySpec& k : s.keys) {
      const std::string& v = k.default_value;
      if (v.empty()) continue;
      ++checked;
      bool value = v == "true" || v == "false" || v.find(' ') == std::string::npos;
      for (int d = 0; !value && d <= static_cast<int>(units::Dim::Rate); ++d)
        value = units::parse(v, static_cast<units::Dim>(d)).ok;
      EXPECT_TRUE(value) << s.path << "." << k.name << ": '" << v << "' reads as prose; move it to default_text";
      if (k.type.find(" | ") != std::string::npos) {
        EXPECT_NE(k.type.find(v), std::string::npos) << s.path << "." << k.name << ": '" << v << "' not in " << k.type;
      }
    }
  EXPECT_GT(checked, 30u);
}

}  // namespace unit_scenario_errors
