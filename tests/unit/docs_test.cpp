// The generated parts of the docs are current (tools/update-docs.sh rewrites them): every model's parameter table
// in its page under docs/models, and the key reference in docs/cluster.md. docs/scenario-reference.md is checked
// by the ctest docs/scenario-reference.
#include <gtest/gtest.h>

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

TEST(Docs, EveryModelPageCarriesItsCurrentParameterTable) {
  size_t checked = 0;
  for (const ModelDescription& m : model_descriptions()) {
    ASSERT_FALSE(m.doc.empty()) << "model " << m.name << " names no page under docs/models";
    const std::string page = "docs/models/" + m.doc;
    ASSERT_TRUE(std::filesystem::exists(std::string(VGPUSIM_SOURCE_DIR) + "/" + page)) << page;
    EXPECT_NE(read(page).find(model_parameters_block(m)), std::string::npos)
        << page << " lacks the current parameter table of " << m.name << ": run tools/update-docs.sh";
    ++checked;
  }
  EXPECT_GE(checked, sharing_modes().size() + 2);  // the modes, the roofline and the contention model at least
}

TEST(Docs, EveryModelPageOpensWithScopeAndEndsWithValidation) {
  for (const ModelDescription& m : model_descriptions()) {
    const std::string page = read("docs/models/" + m.doc);
    const size_t scope = page.find("\n## Scope and limitations"), validation = page.rfind("\n## Validation");
    EXPECT_NE(scope, std::string::npos) << m.doc;
    ASSERT_NE(validation, std::string::npos) << m.doc;
    EXPECT_EQ(page.find("\n## ", validation + 1), std::string::npos) << m.doc << ": a section after Validation";
    EXPECT_LT(scope, page.find("\n## ")+1) << m.doc << ": Scope and limitations is not the first section";
  }
}

TEST(Docs, ClusterPageCarriesTheCurrentKeyReference) {
  const std::string begin = "<!-- generated key reference: `vgpusim list keys --markdown cluster`; checked by a test -->\n";
  const std::string expected = begin + cluster_reference_markdown() + "<!-- end of generated key reference -->";
  EXPECT_NE(read("docs/cluster.md").find(expected), std::string::npos)
      << "docs/cluster.md lacks the current key reference: run tools/update-docs.sh";
}

}  // namespace
}  // namespace vgpusim
