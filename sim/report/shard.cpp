// Shards (shard.hpp): the index from the flag or a job array's environment, and typed reads of shard files.
#include "sim/report/shard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "sim/core/errors.hpp"
#include "sim/io/files.hpp"

namespace vgpusim {
namespace {

// Digits only (no sign, no space), at most nine of them.
unsigned parse_unsigned(const std::string& text, const std::string& what) {
  if (text.empty() || text.size() > 9 || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw InputError(fmt::format("{}: expected a non-negative integer, found '{}'", what, text));
  return static_cast<unsigned>(std::stoul(text));
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

std::string shard_file_name(const std::string& stem, unsigned shard, unsigned shards) {
  return fmt::format("{}-shard-{}-of-{}.json", stem, shard, shards);
}

std::vector<std::string> shard_files(const std::vector<std::string>& parts) {
  std::vector<std::string> out;
  for (const std::string& part : parts) {
    std::error_code ec;
    if (!std::filesystem::is_directory(part, ec)) {
      if (!std::filesystem::exists(part, ec)) throw InputError(fmt::format("{}: no such file or directory", part));
      out.push_back(part);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(part, ec)) {
      const std::string name = entry.path().filename().string();
      const size_t at = name.find("-shard-");
      if (at != std::string::npos && at > 0 && name.size() > 5 && name.substr(name.size() - 5) == ".json" &&
          name.find("-of-", at) != std::string::npos && entry.is_regular_file(ec))
        found.push_back(entry.path().string());
    }
    if (ec) throw InputError(fmt::format("{}: cannot list the directory: {}", part, ec.message()));
    if (found.empty()) throw InputError(fmt::format("{}: no *-shard-I-of-N.json file in the directory", part));
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

nlohmann::json read_shard_json(const std::string& path, const std::string& schema) {
  const std::string text = read_text_file(path, "shard file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not JSON: {}", path, e.what()));
  }
  if (!j.is_object() || !j.contains("schema") || j["schema"] != schema)
    throw InputError(fmt::format("{}: expected schema {}", path, schema));
  return j;
}

std::string shard_schema(const std::string& path) {
  const std::string text = read_text_file(path, "shard file");
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("schema") || !j["schema"].is_string()) return "";
  return j["schema"].get<std::string>();
}

const nlohmann::json& ShardReader::at(const nlohmann::json& obj, const char* key, const std::string& where) const {
  if (!obj.is_object() || !obj.contains(key)) throw InputError(fmt::format("{}: {}: missing \"{}\"", part, where, key));
  return obj.at(key);
}

std::string ShardReader::text(const nlohmann::json& obj, const char* key, const std::string& where) const {
  const nlohmann::json& v = at(obj, key, where);
  if (!v.is_string()) throw InputError(fmt::format("{}: {}.{}: expected a string", part, where, key));
  return v.get<std::string>();
}

bool ShardReader::flag(const nlohmann::json& obj, const char* key, const std::string& where) const {
  const nlohmann::json& v = at(obj, key, where);
  if (!v.is_boolean()) throw InputError(fmt::format("{}: {}.{}: expected true or false", part, where, key));
  return v.get<bool>();
}

uint64_t ShardReader::whole(const nlohmann::json& obj, const char* key, const std::string& where, uint64_t max) const {
  const nlohmann::json& v = at(obj, key, where);
  if (!v.is_number_unsigned() || v.get<uint64_t>() > max)
    throw InputError(fmt::format("{}: {}.{}: expected a whole number from 0 to {}", part, where, key, max));
  return v.get<uint64_t>();
}

double ShardReader::number(const nlohmann::json& obj, const char* key, const std::string& where) const {
  const nlohmann::json& v = at(obj, key, where);
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    throw InputError(fmt::format("{}: {}.{}: expected a finite number", part, where, key));
  return v.get<double>();
}

double ShardReader::number_or_nan(const nlohmann::json& obj, const char* key, const std::string& where) const {
  if (!obj.contains(key) || obj.at(key).is_null()) return std::nan("");
  return number(obj, key, where);
}

const nlohmann::json& ShardReader::list(const nlohmann::json& obj, const char* key, const std::string& where) const {
  const nlohmann::json& v = at(obj, key, where);
  if (!v.is_array()) throw InputError(fmt::format("{}: {}.{}: expected a list", part, where, key));
  return v;
}

nlohmann::ordered_json number_or_null(double x) {
  return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr);
}

}  // namespace vgpusim
