// hwcal's JSON values: nlohmann's ordered_json, as the rest of the project uses nlohmann-json (insertion order is
// kept, so raw files diff well and read top-down), and the few helpers the experiments share.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace vgpusim::hwcal {

using Json = nlohmann::ordered_json;

// The member `key` of an object; nullptr when absent or when `value` is not an object.
const Json* member(const Json& value, std::string_view key);
// A number's value (integers and doubles); nullopt for anything else (a NaN written as null included).
std::optional<double> number_of(const Json& value);
// A raw file's text: two-space indentation, a final newline; NaN and infinities as null.
std::string document_text(const Json& value);

}  // namespace vgpusim::hwcal
