// Reader of NeuSight's measured per-op graphs (sim/io/neusight.hpp).
#include "sim/io/neusight.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "sim/core/errors.hpp"
#include "sim/io/files.hpp"
#include "sim/io/text_fields.hpp"

namespace vgpusim {

namespace fs = std::filesystem;

namespace {

// A whole CSV file (RFC 4180 quotes; the profiles hold no line breaks inside a field): read twice by the profile.
struct CsvTable {
  CsvHeader header;
  std::vector<std::vector<std::string>> rows;
  std::vector<size_t> lines;
  size_t column(const std::string& name) const { return header.index(name); }
};

CsvTable read_table(const std::string& path) {
  CsvTable t;
  read_csv(
      path, CsvQuotes::rfc4180, [&](const CsvHeader& h) { t.header = h; },
      [&](const CsvRow& r) {
        t.rows.push_back(r.cells);
        t.lines.push_back(r.line);
      });
  return t;
}

double number_or_zero(const std::string& path, size_t line, const std::string& column, const std::string& text) {
  return text.empty() ? 0.0 : field_number(path, line, column, text);
}

// The whole numbers of "8, 512" (spaces allowed); nullopt when anything else is there.
std::optional<TensorShape> integers(const std::string& inside) {
  TensorShape s;
  size_t i = 0;
  while (i < inside.size()) {
    while (i < inside.size() && (inside[i] == ' ' || inside[i] == ',')) ++i;
    if (i == inside.size()) break;
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(inside.data() + i, inside.data() + inside.size(), v);
    if (ec != std::errc() || v < 0) return std::nullopt;
    s.push_back(v);
    i = static_cast<size_t>(end - inside.data());
  }
  return s;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The word at `at` (letters, digits, '_').
std::string word_at(const std::string& s, size_t at) {
  size_t end = at;
  while (end < s.size() && word_char(s[end])) ++end;
  return s.substr(at, end - at);
}

// The text of "<class 'X'>" starting at `at` (after its opening quote), its last dotted part.
std::string class_name_at(const std::string& s, size_t at) {
  const size_t close = s.find('\'', at);
  if (close == std::string::npos) return "";
  const std::string c = s.substr(at, close - at);
  const size_t dot = c.rfind('.');
  return dot == std::string::npos ? c : c.substr(dot + 1);
}

// "call_function" targets: "<built-in method addmm of type object at 0x..>" -> addmm, "<function gelu at 0x..>" ->
// gelu, "<class 'torch.finfo'>" -> finfo; other ops keep their target. (No std::regex in this reader: its
// recursion grows with the text, and a profile's fields are long.)
std::string short_target(const std::string& op, const std::string& target) {
  if (op != "call_function") return target;
  for (const char* prefix : {"<built-in function ", "<built-in method ", "<function "})
    if (target.starts_with(prefix)) return word_at(target, std::string(prefix).size());
  if (target.starts_with("<class '")) return class_name_at(target, 8);
  return target;
}

// The module's class: the last "<class '...'>" of the node's meta (its nn_module_stack).
std::string module_class(const std::string& meta) {
  const size_t at = meta.rfind("<class '");
  return at == std::string::npos ? "" : class_name_at(meta, at + 8);
}

// The names before each ": None" of "{a: None, b: None}".
std::vector<std::string> input_names(const std::string& s) {
  std::vector<std::string> out;
  for (size_t at = s.find(": None"); at != std::string::npos; at = s.find(": None", at + 1)) {
    size_t begin = at;
    while (begin > 0 && word_char(s[begin - 1])) --begin;
    if (begin < at) out.push_back(s.substr(begin, at - begin));
  }
  return out;
}

// Each True / False of "[True, False]", in order.
std::vector<bool> flags(const std::string& s) {
  std::vector<bool> out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 4, "True") == 0) out.push_back(true), i += 3;
    else if (s.compare(i, 5, "False") == 0) out.push_back(false), i += 4;
  }
  return out;
}

// A node of the traced layer 0: its name holds "layer_0_", "layers_0_", "h_0_", "block_0_" or "blocks_0_" at its
// start or after a '_'.
bool in_layer0(const std::string& name) {
  for (const char* marker : {"layer_0_", "layers_0_", "h_0_", "block_0_", "blocks_0_"})
    for (size_t at = name.find(marker); at != std::string::npos; at = name.find(marker, at + 1))
      if (at == 0 || name[at - 1] == '_') return true;
  return false;
}

std::string strip_torch(const std::string& dtype) { return dtype.starts_with("torch.") ? dtype.substr(6) : dtype; }

// [first, end) of the one traced layer (NeuSight's profiles trace layer 0 and replicate it): from the first node
// of layer 0 (a name with "layer_0_", "layers_0_", "h_0_" or "block(s)_0_") through its last and the function
// and method nodes after it (the residual add), up to the next module.
std::pair<size_t, size_t> traced_layer(const std::vector<NeusightOp>& ops) {
  size_t first = ops.size(), last = ops.size();
  for (size_t i = 0; i < ops.size(); ++i)
    if (in_layer0(ops[i].node.name)) {
      if (first == ops.size()) first = i;
      last = i;
    }
  if (first == ops.size()) return {0, 0};
  size_t end = last + 1;
  while (end < ops.size() && (ops[end].node.op == "call_function" || ops[end].node.op == "call_method")) ++end;
  return {first, end};
}

}  // namespace

std::vector<TensorShape> parse_shape_list(const std::string& text) {
  std::vector<TensorShape> out;
  // The innermost brackets: "[[8, 512], [1]]" -> "8, 512" and "1".
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '[') continue;
    const size_t j = text.find_first_of("[]", i + 1);
    if (j == std::string::npos) break;
    if (text[j] == '[') continue;
    if (auto s = integers(text.substr(i + 1, j - i - 1)); s && !s->empty()) out.push_back(*s);
    i = j;
  }
  return out;
}

std::optional<TensorShape> parse_shape(const std::string& text) {
  std::string t = text;
  t.erase(std::remove_if(t.begin(), t.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
          t.end());
  if (t.size() < 2 || (t.front() != '(' && t.front() != '[') || (t.back() != ')' && t.back() != ']'))
    return std::nullopt;
  return integers(t.substr(1, t.size() - 2));
}

std::vector<std::string> neusight_gpus(const std::string& dir) {
  std::vector<std::string> out;
  const fs::path label = fs::path(dir) / "label";
  if (!fs::is_directory(label)) throw InputError(fmt::format("{}: no folder 'label' (NeuSight's label/<GPU>/)", dir));
  for (const auto& e : fs::directory_iterator(label))
    if (e.is_directory()) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

int read_neusight_layers(const std::string& json_path) {
  try {
    const int layers = nlohmann::json::parse(read_text_file(json_path, "NeuSight latency file")).at("num_layer").get<int>();
    if (layers < 1) throw InputError(fmt::format("{}: expected num_layer >= 1", json_path));
    return layers;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: {}", json_path, e.what()));
  }
}

std::vector<NeusightOp> read_neusight_profile(const std::string& csv_path, int layers) {
  std::vector<NeusightOp> ops;
  const CsvTable t = read_table(csv_path);
  const size_t op = t.column("op"), target = t.column("target"),
               inputs = t.column("_input_nodes"), meta = t.column("meta"),
               shapes = t.column("input_shapes"), contig = t.column("input_contiguous"),
               fw = t.column("fw_latency"), bw = t.column("bw_latency"),
               acc = t.column("acc_latency"), out = t.column("output_shape"),
               dtype = t.column("dtype"), name = t.column("Name");
  std::map<std::string, std::string> dtype_of;
  for (const auto& r : t.rows) dtype_of[r[name]] = strip_torch(r[dtype]);
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const auto& r = t.rows[i];
    NeusightOp o;
    o.node.name = r[name];
    o.node.op = r[op];
    o.node.target = short_target(r[op], r[target]);
    if (r[op] == "call_module") o.node.module = module_class(r[meta]);
    o.node.inputs = parse_shape_list(r[shapes]);
    for (const std::string& n : input_names(r[inputs])) {
      const auto d = dtype_of.find(n);
      o.node.input_dtypes.push_back(d == dtype_of.end() || d->second.empty() ? "float32" : d->second);
    }
    o.node.input_contiguous = flags(r[contig]);
    o.node.output = parse_shape(r[out]);
    o.node.dtype = strip_torch(r[dtype]);
    o.forward = number_or_zero(csv_path, t.lines[i], "fw_latency", r[fw]) * 1e-3;
    o.backward = number_or_zero(csv_path, t.lines[i], "bw_latency", r[bw]) * 1e-3;
    o.accumulate = number_or_zero(csv_path, t.lines[i], "acc_latency", r[acc]) * 1e-3;
    ops.push_back(std::move(o));
  }
  const auto [first, end] = traced_layer(ops);
  for (size_t i = first; i < end; ++i) ops[i].repeat = layers;
  // Embedding tables' rows (their backward's dense gradient): the vocabulary is the width of the output head.
  double vocabulary = 0;
  for (const NeusightOp& o : ops)
    if ((o.node.name == "lm_head" || o.node.name.ends_with("_decoder")) && o.node.output && !o.node.output->empty())
      vocabulary = static_cast<double>(o.node.output->back());
  for (NeusightOp& o : ops) {
    if (o.node.module != "Embedding") continue;
    const std::string& n = o.node.name;
    // Positions: one row per position of the sequence (the output's second last dimension).
    const double positions = o.node.output && o.node.output->size() >= 2
                                 ? static_cast<double>((*o.node.output)[o.node.output->size() - 2])
                                 : 0.0;
    o.node.table_rows = n.find("token_type") != std::string::npos                      ? 2
                        : n.find("position") != std::string::npos || n.ends_with("wpe") ? positions
                                                                                          : vocabulary;
  }
  return ops;
}

NeusightCase read_neusight_case(const std::string& csv_path, const std::string& json_path, const std::string& gpu) {
  NeusightCase c;
  c.gpu = gpu;
  c.id = fs::path(csv_path).stem().string();
  // <model>-<inf|train>-<seq>-<batch>[-option]
  const std::vector<std::string> parts = split_fields(c.id, '-');
  if (parts.size() < 4 || (parts[1] != "inf" && parts[1] != "train"))
    throw InputError(fmt::format("{}: expected a name MODEL-inf|train-SEQ-BATCH[-OPTION]", csv_path));
  c.model = parts[0];
  c.training = parts[1] == "train";
  c.seq = field_integer(csv_path, 0, "sequence length in the name", parts[2]);
  c.batch = field_integer(csv_path, 0, "batch in the name", parts[3]);
  for (size_t i = 4; i < parts.size(); ++i) c.option += (i > 4 ? "-" : "") + parts[i];

  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_text_file(json_path, "NeuSight latency file"));
    c.layers = j.at("num_layer").get<int>();
    c.forward_latency = j.at("fw_latency").get<double>() * 1e-3;
    c.backward_latency = j.value("bwall_latency", 0.0) * 1e-3;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: {}", json_path, e.what()));
  }
  if (c.layers < 1 || c.forward_latency <= 0)
    throw InputError(fmt::format("{}: expected num_layer >= 1 and fw_latency > 0", json_path));

  c.ops = read_neusight_profile(csv_path, c.layers);
  return c;
}

std::vector<NeusightCase> read_neusight_cases(const std::string& dir, const std::string& gpu) {
  std::vector<std::string> stems;
  for (const auto& e : fs::directory_iterator(fs::path(dir) / "label" / gpu))
    if (e.path().extension() == ".csv" && fs::exists(fs::path(e.path()).replace_extension(".json")))
      stems.push_back(e.path().stem().string());
  std::sort(stems.begin(), stems.end());
  std::vector<NeusightCase> out;
  for (const std::string& s : stems) {
    const fs::path base = fs::path(dir) / "label" / gpu / s;
    out.push_back(read_neusight_case(base.string() + ".csv", base.string() + ".json", gpu));
  }
  return out;
}

std::vector<std::string> neusight_cases_without_profile(const std::string& dir, const std::string& gpu) {
  std::vector<std::string> stems;
  for (const auto& e : fs::directory_iterator(fs::path(dir) / "label" / gpu))
    if (e.path().extension() == ".json" && !fs::exists(fs::path(e.path()).replace_extension(".csv")))
      stems.push_back(e.path().stem().string());
  std::sort(stems.begin(), stems.end());
  return stems;
}

std::optional<NeusightDevice> read_neusight_device(const std::string& dir, const std::string& gpu) {
  const fs::path p = fs::path(dir) / "device_configs" / (gpu + ".json");
  if (!fs::exists(p)) return std::nullopt;
  try {
    const nlohmann::json j = nlohmann::json::parse(read_text_file(p.string(), "NeuSight device file"));
    NeusightDevice d;
    d.name = j.value("Device", gpu);
    d.memory = j.value("Dev_Mem", 0.0) * 1073741824.0;
    d.bandwidth = j.value("Mem_Bw", 0.0) * 1e9;
    d.sms = j.value("Num_Sm", 0.0);
    d.clock = j.value("Freq", 0.0) * 1e6;
    // NVIDIA configs give one FP32 rate; AMD's give the vector and the matrix rates, and FP32 GEMMs run on the
    // matrix cores (rocBLAS).
    d.fp32 = j.value("SingleFLOPs", j.value("SingleFLOPsMM", 0.0)) * 1e9;
    d.l2 = j.value("L2Cache", 0.0) * 1048576.0;
    return d;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: {}", p.string(), e.what()));
  }
}

std::map<std::pair<std::string, std::string>, NeusightPredictions> read_neusight_summary(const std::string& dir) {
  std::map<std::pair<std::string, std::string>, NeusightPredictions> out;
  const std::string path = (fs::path(dir) / "summary" / "summary.csv").string();
  if (!fs::exists(path)) return out;
  const CsvTable t = read_table(path);
  const size_t model = t.column("model_name"), seq = t.column("seqlen"), batch = t.column("batch"),
               device = t.column("device"), mode = t.column("mode"), option = t.column("option"),
               ns = t.column("neusight_all_e2e_latency"), roof = t.column("roofline_all_e2e_latency"),
               hab = t.column("habitat_all_e2e_latency");
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const auto& r = t.rows[i];
    const std::string id = fmt::format("{}-{}-{}-{}{}", r[model], r[mode], r[seq], r[batch],
                                       r[option].empty() ? "" : "-" + r[option]);
    NeusightPredictions p;
    p.neusight = number_or_zero(path, t.lines[i], "neusight_all_e2e_latency", r[ns]) * 1e-3;
    p.roofline = number_or_zero(path, t.lines[i], "roofline_all_e2e_latency", r[roof]) * 1e-3;
    p.habitat = number_or_zero(path, t.lines[i], "habitat_all_e2e_latency", r[hab]) * 1e-3;
    out[{r[device], id}] = p;
  }
  return out;
}

}  // namespace vgpusim
