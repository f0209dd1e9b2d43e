// Workload kind `kernels`: a kernel mix with think time (models/workload).
#include <fmt/format.h>

#include "sim/scenario/loader_state.hpp"
#include "sim/scenario/workload_kind.hpp"

namespace vgpusim {

WorkloadKindInfo kernels_workload_kind() {
  WorkloadKindInfo kind;
  kind.name = "kernels";
  kind.help = "a kernel mix with think time";
  kind.sections = {
      {"workload.kernels",
       "Draw a kernel from the mix by weight, run it, think, repeat.",
       {{"mix", "list of mix[]", false, "", "the kernels and their weights (or use `kernel`)"},
        {"kernel", "kernel", false, "", "a single kernel instead of a mix"},
        {"count", "integer", false, "", "kernels to run", "until the scenario ends"},
        {"think", "time or distribution", false, "0 s", "time between kernels (the mean with think_distribution)"},
        {"think_distribution", "constant | exponential", false, "constant",
         "shorthand: exponential makes a plain `think` the mean of exponential think times"}}},
      {"workload.kernels.mix[]",
       "One kernel of a mix.",
       {{"name", "string", false, "", "a label"},
        {"weight", "number > 0", false, "1", "relative frequency"},
        {"kernel", "kernel", true, "", "the work"}}},
  };
  kind.read = [](Loader& loader, const MapReader& r, const ScenarioGpu& gpu) -> WorkloadRef {
    auto t = std::make_shared<KernelsWorkload>();
    if (r.has("mix") == r.has("kernel")) fail_at(r.file(), r.node(), r.path(), "expected either `mix` or `kernel`");
    if (r.has("kernel")) {
      t->mix.push_back({"kernel", 1, loader.kernel(r.node("kernel"), r.child_path("kernel"), "fp32", gpu)});
    } else {
      const YAML::Node mix = r.node("mix");
      if (!mix.IsSequence() || mix.size() == 0)
        fail_at(r.file(), mix, r.child_path("mix"), "expected a non-empty list of kernels");
      for (size_t i = 0; i < mix.size(); ++i) {
        MapReader m(r.file(), mix[i], fmt::format("{}[{}]", r.child_path("mix"), i),
                    section_named("workload.kernels.mix[]"));
        m.finish();
        KernelMixEntry e;
        e.name = m.has("name") ? m.string("name") : fmt::format("k{}", i);
        e.weight = loader.positive(m, "weight", units::Dim::Count);
        e.kernel = loader.kernel(m.node("kernel"), m.child_path("kernel"), "fp32", gpu);
        t->mix.push_back(e);
      }
    }
    t->count = r.has("count") ? r.integer("count", 0, 1LL << 50) : -1;
    t->think = loader.distribution(r, "think", units::Dim::Time);
    if (r.choice("think_distribution", {"constant", "exponential"}) == "exponential") {
      if (!t->think.is_constant())
        fail_at(r.file(), r.node("think_distribution"), r.child_path("think_distribution"),
                "give the distribution in `think` or `think_distribution: exponential` with a plain `think`, not both");
      t->think = {Distribution::Kind::Exponential, t->think.a, 0};
    }
    return t;
  };
  return kind;
}

}  // namespace vgpusim
