// The generated parts of the docs are current (tools/update-docs.sh rewrites them): every model's parameter table
// in its page under docs/models, and the key reference in docs/cluster.md. docs/scenario-reference.md is checked
// by the ctest docs/scenario-reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/registry/models.hpp"
#include "models/sharing/sharing_mode.hpp"
#include "sim/io/reference_markdown.hpp"
#include "sim/studies/cluster/cluster_scenario.hpp"

namespace vgpusim {
namespace {

std::string read(const std::string& relative) {
  std::ifstream in(std::string(VGPUSIM_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every built-in sharing mode (VGPUSIM_SHARING_MODES in CMakeLists.txt) and component model has a page.
TEST(Docs, EveryBuiltInModelHasAPage) {
  std::vector<std::string> builtin;
  std::stringstream modes(VGPUSIM_SHARING_MODES);
  for (std::string name; std::getline(modes, name, ',');) builtin.push_back(name);
  ASSERT_GE(builtin.size(), 7u);
  builtin.insert(builtin.end(), {"roofline", "contention"});
  const std::vector<ModelDescription> models = model_descriptions();
  for (const std::string& name : builtin) {
    const auto it =
        std::find_if(models.begin(), models.end(), [&](const ModelDescription& m) { return m.name == name; });
    ASSERT_NE(it, models.end()) << name;
    EXPECT_FALSE(it->doc.empty()) << "model " << name << " names no page under docs/models";
  }
}

// Models that name a page (built-in ones, the network room's) carry their current parameter table there.
TEST(Docs, EveryModelPageCarriesItsCurrentParameterTable) {
  size_t checked = 0;
  for (const ModelDescription& m : model_descriptions()) {
    if (m.doc.empty()) continue;  // a plug-in's or a test's model without a page
    const std::string page = "docs/models/" + m.doc;
    ASSERT_TRUE(std::filesystem::exists(std::string(VGPUSIM_SOURCE_DIR) + "/" + page)) << page;
    EXPECT_NE(read(page).find(model_parameters_block(m)), std::string::npos)
        << page << " lacks the current parameter table of " << m.name << ": run tools/update-docs.sh";
    ++checked;
  }
  EXPECT_GE(checked, 9u);  // the seven modes, the roofline and the contention model at least
}

TEST(Docs, EveryModelPageOpensWithScopeAndEndsWithValidation) {
  for (const ModelDescription& m : model_descriptions()) {
    if (m.doc.empty()) continue;
    const std::string page = read("docs/models/" + m.doc);
    const size_t scope = page.find("\n## Scope and limitations"), validation = page.rfind("\n## Validation");
    EXPECT_NE(scope, std::string::npos) << m.doc;
    ASSERT_NE(validation, std::string::npos) << m.doc;
    EXPECT_EQ(page.find("\n## ", validation + 1), std::string::npos) << m.doc << ": a section after Validation";
    EXPECT_LT(scope, page.find("\n## ") + 1) << m.doc << ": Scope and limitations is not the first section";
  }
}

TEST(Docs, ClusterPageCarriesTheCurrentKeyReference) {
  const std::string begin =
      "<!-- generated key reference: `vgpusim list keys --markdown cluster`; checked by a test -->\n";
  const std::string expected = begin + cluster_reference_markdown() + "<!-- end of generated key reference -->";
  EXPECT_NE(read("docs/cluster.md").find(expected), std::string::npos)
      << "docs/cluster.md lacks the current key reference: run tools/update-docs.sh";
}

}  // namespace
}  // namespace vgpusim
