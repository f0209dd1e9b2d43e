// hwcal's JSON helpers (json.hpp).
#include "json.hpp"

namespace vgpusim::hwcal {

const Json* member(const Json& value, std::string_view key) {
  if (!value.is_object()) return nullptr;
  const auto it = value.find(key);
  return it == value.end() ? nullptr : &*it;
}

std::optional<double> number_of(const Json& value) {
  if (!value.is_number()) return std::nullopt;
  return value.get<double>();
}

std::string document_text(const Json& value) {
  // nlohmann writes NaN and infinities as null; invalid UTF-8 (a device or host name) is replaced, not thrown.
  return value.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace vgpusim::hwcal
