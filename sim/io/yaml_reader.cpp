// The strict YAML reader: declared keys only, typed values, messages with FILE:LINE:COL and key path.
#include "sim/io/yaml_reader.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace vgpusim {
namespace {

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null: return "nothing";
    case YAML::NodeType::Scalar: return fmt::format("'{}'", node.Scalar());
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    default: return "an undefined value";
  }
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

std::string where(const std::string& file, const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  if (m.is_null() || m.line < 0) return file + " (--set)";
  return fmt::format("{}:{}:{}", file, m.line + 1, m.column + 1);
}

void fail_at(const std::string& file, const YAML::Node& node, const std::string& path, const std::string& what) {
  throw InputError(fmt::format("{}: {}: {}", where(file, node), path.empty() ? "(top level)" : path, what));
}

namespace {
// Checks a YAML text as a stream of parse events, before anything builds a tree from it (an alias arrives as one
// event and is never expanded): more than one document, a key given twice in one mapping (YAML forbids it;
// yaml-cpp keeps both and lookups see the first), and an alias inside the node it names (a loop that a tree walk
// would follow forever).
class Checker final : public YAML::EventHandler {
 public:
  explicit Checker(std::string file) : file_(std::move(file)) {}
  int documents = 0;

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents > 1)
      throw InputError(fmt::format("{}:{}:{}: a second YAML document (after '---'); a file holds one", file_,
                                   mark.line + 1, mark.column + 1));
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark, nullptr); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    for (const Frame& f : stack_)
      if (f.anchor == anchor && anchor != YAML::NullAnchor)
        throw InputError(fmt::format("{}:{}:{}: {}: an alias inside the node it names (a loop)", file_,
                                     mark.line + 1, mark.column + 1, path()));
    node(mark, nullptr);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string& value) override {
    node(mark, &value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    node(mark, nullptr);
    push(false, anchor);
  }
  void OnSequenceEnd() override { stack_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    node(mark, nullptr);
    push(true, anchor);
  }
  void OnMapEnd() override { stack_.pop_back(); }

 private:
  struct Frame {
    bool map = false;
    YAML::anchor_t anchor = YAML::NullAnchor;
    bool want_key = true;
    std::map<std::string, int> keys;  // key -> its line (1-based)
    std::string key;                  // the current key (maps)
    size_t index = 0;                 // the current element (sequences)
  };

  void push(bool map, YAML::anchor_t anchor) {
    Frame f;
    f.map = map;
    f.anchor = anchor;
    stack_.push_back(std::move(f));
  }

  // The key path of the node being read, for messages.
  std::string path() const {
    std::string out;
    for (const Frame& f : stack_) {
      if (f.map)
        out += (out.empty() ? "" : ".") + f.key;
      else
        out += fmt::format("[{}]", f.index == 0 ? 0 : f.index - 1);
    }
    return out;
  }

  // A node begins in the innermost collection: a key or a value of a mapping, an element of a sequence.
  void node(const YAML::Mark& mark, const std::string* scalar) {
    if (stack_.empty()) return;
    Frame& f = stack_.back();
    if (!f.map) {
      ++f.index;
      return;
    }
    if (!f.want_key) {
      f.want_key = true;
      return;
    }
    f.want_key = false;
    f.key = scalar ? *scalar : "?";
    if (!scalar) return;
    const auto [at, fresh] = f.keys.emplace(*scalar, mark.line + 1);
    if (!fresh)
      throw InputError(fmt::format("{}:{}:{}: {}: duplicate key '{}' (first at line {})", file_, mark.line + 1,
                                   mark.column + 1, path(), *scalar, at->second));
  }

  std::string file_;
  std::vector<Frame> stack_;
};
}  // namespace

YAML::Node parse_yaml(const std::string& text, const std::string& file) {
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    Checker checker(file);
    while (parser.HandleNextDocument(checker)) {
    }
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}:{}: YAML syntax error: {}", file, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

std::map<std::string, std::string> read_sources(const std::string& file, const YAML::Node& node) {
  if (!node.IsMap()) fail_at(file, node, "sources", "expected a mapping of source key -> citation");
  std::map<std::string, std::string> sources;
  for (auto it = node.begin(); it != node.end(); ++it)
    sources[it->first.Scalar()] = read_string(file, it->second, "sources." + it->first.Scalar());
  return sources;
}

double read_quantity(const std::string& file, const YAML::Node& node, const std::string& path, units::Dim dim) {
  if (!node.IsScalar())
    fail_at(file, node, path, fmt::format("expected {} such as '{}', found {}", units::dim_name(dim),
                                          units::dim_example(dim), describe(node)));
  const units::ParseResult r = units::parse(node.Scalar(), dim);
  if (!r.ok) fail_at(file, node, path, r.error);
  return r.value;
}

namespace {
// The offset of the first byte that is not part of well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF), or npos.
size_t invalid_utf8_at(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c < 0x80) n = 0;
    else if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c == 0xE0) n = 2, lo = 0xA0;
    else if (c == 0xED) n = 2, hi = 0x9F;
    else if (c >= 0xE1 && c <= 0xEF) n = 2;
    else if (c == 0xF0) n = 3, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) n = 3;
    else if (c == 0xF4) n = 3, hi = 0x8F;
    else return i;
    for (size_t k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return i;
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (b < (k == 1 ? lo : 0x80u) || b > (k == 1 ? hi : 0xBFu)) return i;
    }
    i += n + 1;
  }
  return std::string::npos;
}
}  // namespace

std::string read_string(const std::string& file, const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar() || node.Scalar().empty())
    fail_at(file, node, path, fmt::format("expected a string, found {}", describe(node)));
  // Every output (results.json, the CSV, the report) carries names as UTF-8 text: refuse what is not.
  if (const size_t at = invalid_utf8_at(node.Scalar()); at != std::string::npos)
    fail_at(file, node, path,
            fmt::format("expected UTF-8 text; the string is not valid UTF-8 from its byte {} (0x{:02X})", at + 1,
                        static_cast<unsigned char>(node.Scalar()[at])));
  return node.Scalar();
}

MapReader::MapReader(const std::string& file, const YAML::Node& node, std::string path, const Section& section)
    : file_(file), node_(node), path_(std::move(path)), section_(section) {
  if (!node_.IsMap()) fail_at(file_, node_, path_, fmt::format("expected a mapping, found {}", describe(node_)));
}

const KeySpec& MapReader::spec(const std::string& key) const {
  for (const KeySpec& k : section_.keys)
    if (k.name == key) return k;
  throw std::logic_error("key '" + key + "' read but not declared in section " + section_.path);
}

bool MapReader::has(const std::string& key) const {
  spec(key);
  const YAML::Node n = node_[key];
  return n.IsDefined() && !n.IsNull();
}

YAML::Node MapReader::node(const std::string& key) const {
  if (!has(key))
    fail_at(file_, node_, path_, fmt::format("missing required key '{}' in {}", key, path_.empty() ? "the top level" : path_));
  return node_[key];
}

YAML::Node MapReader::value(const std::string& key) const {
  if (has(key)) return node_[key];
  const std::string& fallback = spec(key).default_value;
  if (fallback.empty()) return node(key);  // fails: missing required key
  return YAML::Node(fallback);
}

void MapReader::bad_default(const std::string& key, const std::string& why) const {
  throw std::logic_error(fmt::format("section {}: the default of '{}' ('{}') is not usable: {}", section_.path, key,
                                     spec(key).default_value, why));
}

std::string MapReader::string(const std::string& key) const {
  return read_string(file_, value(key), child_path(key));
}

std::string MapReader::choice(const std::string& key, const std::vector<std::string>& choices) const {
  const YAML::Node n = value(key);
  const std::string text = read_string(file_, n, child_path(key));
  if (std::find(choices.begin(), choices.end(), text) != choices.end()) return text;
  if (!has(key)) bad_default(key, "not one of " + join(choices));
  fail_at(file_, n, child_path(key),
          fmt::format("expected one of {}, found '{}'{}", join(choices), text, did_you_mean_suffix(text, choices)));
}

double MapReader::number_param(const ParamSpec& p) const {
  if (p.whole)
    return static_cast<double>(integer(p.name, static_cast<long long>(p.min), static_cast<long long>(p.max)));
  const double v = quantity(p.name, p.dim);
  if (v < p.min || v > p.max)
    fail_at(file_, node(p.name), child_path(p.name),
            fmt::format("expected a value from {} to {}, found {}", units::format(p.min, p.dim),
                        units::format(p.max, p.dim), units::format(v, p.dim)));
  return v;
}

double MapReader::quantity(const std::string& key, units::Dim dim) const {
  if (!has(key) && !spec(key).default_value.empty()) {
    const units::ParseResult r = units::parse(spec(key).default_value, dim);
    if (!r.ok) bad_default(key, r.error);
    return r.value;
  }
  return read_quantity(file_, node(key), child_path(key), dim);
}

long long MapReader::integer(const std::string& key, long long min, long long max) const {
  const YAML::Node n = value(key);
  long long v = 0;
  const std::string s = n.IsScalar() ? n.Scalar() : "";
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  const bool ok = n.IsScalar() && ec == std::errc() && end == s.data() + s.size();
  if (!has(key) && (!ok || v < min || v > max)) bad_default(key, fmt::format("not an integer from {} to {}", min, max));
  if (!ok) fail_at(file_, n, child_path(key), fmt::format("expected an integer, found {}", describe(n)));
  if (v < min || v > max)
    fail_at(file_, n, child_path(key), fmt::format("expected an integer from {} to {}, found {}", min, max, v));
  return v;
}

bool MapReader::boolean(const std::string& key) const {
  const YAML::Node n = value(key);
  const std::string s = n.IsScalar() ? n.Scalar() : "";
  if (s == "true") return true;
  if (s == "false") return false;
  if (!has(key)) bad_default(key, "not true or false");
  fail_at(file_, n, child_path(key), fmt::format("expected true or false, found {}", describe(n)));
}

void MapReader::finish() const {
  if (section_.open) return;
  std::vector<std::string> known;
  for (const KeySpec& k : section_.keys) known.push_back(k.name);
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    fail_at(file_, it->first, child_path(key),
            fmt::format("unknown key '{}'{} (known keys: {})", key,
                        did_you_mean_suffix(key, known), join(known)));
  }
}

}  // namespace vgpusim
