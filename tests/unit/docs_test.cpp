// The generated parts of the docs are current (tools/update-docs.sh rewrites them): every model's parameter table
// in its page under docs/models, and the key reference in docs/cluster.md. docs/scenario-reference.md is checked
// by the ctest docs/scenario-reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "models/descriptions/model_descriptions.hpp"
#include "models/sharing/mode_registry.hpp"
#include "sim/io/reference_markdown.hpp"
#include "sim/studies/cluster/cluster_scenario.hpp"

namespace vgpusim::unit_docs {
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
  builtin.insert(builtin.end(), {"roofline", "ops", "contention"});
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
}  // namespace vgpusim::unit_docs

namespace vgpusim::unit_docs {
namespace {

namespace fs = std::filesystem;

// The repository's roots a cited path may start with. A path in another repository is written owner/name:path, which
// this does not take for ours.
const std::regex& repository_path() {
  static const std::regex re(R"((?:^|[\s(`'"])((?:docs|hwcal|models|scenarios|sim|tests|tools)/[A-Za-z0-9_./<>*-]+))");
  return re;
}

// The problems of one text: a path into the repository that does not exist, or a source that only the development
// machines have.
// A cited path exists: from the repository's root or the citing file's folder, or as a source's header and file
// ("models/gpu/roofline" for roofline.hpp and .cpp, "collectives.hpp/.cpp").
bool resolves(std::string path, const fs::path& folder) {
  const fs::path root(VGPUSIM_SOURCE_DIR);
  if (path.ends_with("/.cpp")) path = path.substr(0, path.size() - 5);
  for (const fs::path& base : {root, folder})
    for (const char* ext : {"", ".hpp", ".cpp"})
      if (fs::exists(base / (path + ext))) return true;
  return false;
}

void check_citations(const std::string& where, const std::string& text, std::vector<std::string>& problems,
                     const fs::path& folder = fs::path(VGPUSIM_SOURCE_DIR)) {
  for (const char* outside : {"shared/guides", "GPU-FACTS", "/work/", "SIMGRID-3.32.md"})
    if (text.find(outside) != std::string::npos &&
        !(std::string(outside) == "SIMGRID-3.32.md" && text.find("sources/simgrid-3.32.md") != std::string::npos))
      problems.push_back(where + ": cites '" + outside + "', which the repository does not hold");
  for (std::sregex_iterator it(text.begin(), text.end(), repository_path()), end; it != end; ++it) {
    std::string path = (*it)[1].str();
    while (!path.empty() && std::string(".,:;)").find(path.back()) != std::string::npos) path.pop_back();
    if (path.find_first_of("<>*") != std::string::npos) continue;  // a pattern, e.g. docs/models/<name>.md
    if (!resolves(path, folder)) problems.push_back(where + ": no such file " + path);
  }
}

}  // namespace

// Every source a parameter or a catalog value cites, and every relative link and repository path the docs name,
// resolves from the repository alone.
TEST(Docs, EveryCitedSourceAndLinkResolvesInTheRepository) {
  std::vector<std::string> problems;
  size_t links = 0;
  for (const ModelDescription& m : model_descriptions())
    for (const ParamSpec& p : m.params) check_citations(p.qualified() + " source", p.source, problems);
  const fs::path root(VGPUSIM_SOURCE_DIR);
  std::vector<fs::path> pages = {root / "README.md"};
  for (const char* dir : {"docs", "scenarios", "hwcal", "models/catalog", "models/calibration"})
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".md" || (ext == ".yaml" && std::string(dir).starts_with("models"))))
        pages.push_back(e.path());
    }
  static const std::regex link(R"(\]\(([^)\s]+)\))");
  for (const fs::path& page : pages) {
    std::ifstream in(page);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    const std::string name = fs::relative(page, root).string();
    check_citations(name, text, problems, page.parent_path());
    if (page.extension() != ".md") continue;
    for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
      std::string target = (*it)[1].str();
      if (target.starts_with("http") || target.starts_with("#") || target.starts_with("mailto:")) continue;
      target = target.substr(0, target.find('#'));
      ++links;
      if (!fs::exists(page.parent_path() / target)) problems.push_back(name + ": dead link " + target);
    }
  }
  EXPECT_GT(links, 50u);
  for (const std::string& p : problems) ADD_FAILURE() << p;
}

}  // namespace vgpusim::unit_docs
