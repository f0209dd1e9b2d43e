// Markdown from the key and parameter tables.
#include "sim/io/reference_markdown.hpp"

#include <fmt/format.h>

namespace vgpusim {
namespace {

// A Markdown table cell: '|' escaped.
std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace

std::string keys_markdown(const std::vector<Section>& sections, const std::string& heading,
                          const std::string& top_level) {
  std::string md;
  for (const Section& s : sections) {
    md += fmt::format("{} `{}`\n\n{}\n\n| key | type | required | default | meaning |\n|---|---|---|---|---|\n",
                      heading, s.path.empty() ? top_level : s.path, s.help);
    for (const KeySpec& k : s.keys)
      md += fmt::format("| `{}` | {} | {} | {} | {} |\n", k.name, markdown_cell(k.type), k.required ? "yes" : "no",
                        markdown_cell(k.documented_default()), markdown_cell(k.help));
    md += "\n";
  }
  return md;
}

std::string parameters_markdown(const std::vector<ParamSpec>& params) {
  if (params.empty()) return "No parameters.\n\n";
  std::string md =
      "| parameter | type | default | range | per tenant | meaning | source |\n|---|---|---|---|---|---|---|\n";
  for (const ParamSpec& p : params)
    md += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", p.qualified(), markdown_cell(p.type_text()),
                      markdown_cell(p.default_text()), markdown_cell(p.range_text()), p.per_tenant ? "yes" : "",
                      markdown_cell(p.help), markdown_cell(p.source));
  return md + "\n";
}

std::string model_parameters_block(const ModelDescription& model) {
  return fmt::format("<!-- generated parameters of {}: `vgpusim list models --markdown {}`; checked by a test -->\n\n"
                     "{}<!-- end of generated parameters -->\n",
                     model.name, model.name, parameters_markdown(model.params));
}

}  // namespace vgpusim
