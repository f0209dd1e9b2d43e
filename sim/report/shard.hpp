// Dividing a command's work into shards (one process each: a Slurm job array, a Kubernetes Indexed Job) and reading
// the shard files back for `vgpusim merge`. Used by plan, sweep and study (docs/scale.md).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace vgpusim {

// "I/N" from --shard, else SLURM_ARRAY_TASK_ID (with SLURM_ARRAY_TASK_COUNT or `shards`) or JOB_COMPLETION_INDEX
// (with `shards`); {0, 1} when none. Throws InputError on a malformed flag or an index not below the count.
std::pair<unsigned, unsigned> resolve_shard(const std::string& shard_flag, unsigned shards);

// "<stem>-shard-I-of-N.json": the file a shard writes into its --out directory.
std::string shard_file_name(const std::string& stem, unsigned shard, unsigned shards);

// The shard files `parts` name: a directory stands for its *-shard-I-of-N.json files (in name order), a file for
// itself. Throws InputError for a directory without one or a path that does not exist.
std::vector<std::string> shard_files(const std::vector<std::string>& parts);

// A shard file as JSON, its "schema" checked; InputError "PATH: ..." when it cannot be read, is not JSON or has
// another schema.
nlohmann::json read_shard_json(const std::string& path, const std::string& schema);
// Its "schema" only (empty when it has none or is not a JSON object): which command wrote it.
std::string shard_schema(const std::string& path);

// One field of a shard's JSON object, of the type its writer writes; anything else is bad input naming the shard.
struct ShardReader {
  const std::string& part;

  const nlohmann::json& at(const nlohmann::json& obj, const char* key, const std::string& where) const;
  std::string text(const nlohmann::json& obj, const char* key, const std::string& where) const;
  bool flag(const nlohmann::json& obj, const char* key, const std::string& where) const;
  // A whole number within [0, max]: floats, negatives and huge values are refused before any conversion.
  uint64_t whole(const nlohmann::json& obj, const char* key, const std::string& where, uint64_t max) const;
  double number(const nlohmann::json& obj, const char* key, const std::string& where) const;
  // A number or null (NaN), as a writer writes a missing value; absent is null too.
  double number_or_nan(const nlohmann::json& obj, const char* key, const std::string& where) const;
  // A list (InputError otherwise).
  const nlohmann::json& list(const nlohmann::json& obj, const char* key, const std::string& where) const;
};

// A finite number as itself, anything else (NaN, infinite) as null: what ShardReader::number_or_nan reads back.
nlohmann::ordered_json number_or_null(double x);

}  // namespace vgpusim
