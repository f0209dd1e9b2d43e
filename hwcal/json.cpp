// A tiny ordered JSON value and writer for the raw calibration files.
// Doubles print in shortest round-trip form; NaN and infinities print as null (JSON has no such numbers).
#include "hwcal/json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace vgpusim::hwcal {
namespace {

constexpr std::size_t kFlatObjectMaxMembers = 12;  // larger flat objects are written one member per line

bool is_scalar(const Json& value) { return !value.is_object() && !value.is_array(); }

void write_double(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, result.ptr);
}

void newline(std::string& out, int depth) {
  out += '\n';
  out.append(static_cast<std::size_t>(depth) * 2, ' ');
}

}  // namespace

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

Json& Json::set(std::string_view key, Json value) {
  if (is_null()) value_ = ObjectData{};
  auto& data = std::get<ObjectData>(value_);
  for (std::size_t i = 0; i < data.keys.size(); ++i) {
    if (data.keys[i] == key) {
      data.values[i] = std::move(value);
      return data.values[i];
    }
  }
  data.keys.emplace_back(key);
  data.values.push_back(std::move(value));
  return data.values.back();
}

Json& Json::push(Json value) {
  if (is_null()) value_ = ArrayData{};
  auto& data = std::get<ArrayData>(value_);
  data.push_back(std::move(value));
  return data.back();
}

std::size_t Json::size() const {
  if (const auto* object = std::get_if<ObjectData>(&value_)) return object->keys.size();
  if (const auto* array = std::get_if<ArrayData>(&value_)) return array->size();
  return 0;
}

const Json* Json::find(std::string_view key) const {
  const auto* data = std::get_if<ObjectData>(&value_);
  if (data == nullptr) return nullptr;
  for (std::size_t i = 0; i < data->keys.size(); ++i) {
    if (data->keys[i] == key) return &data->values[i];
  }
  return nullptr;
}

const Json::ArrayData& Json::elements() const {
  static const ArrayData empty;
  const auto* data = std::get_if<ArrayData>(&value_);
  return data == nullptr ? empty : *data;
}

std::optional<double> Json::number() const {
  if (const auto* real = std::get_if<double>(&value_)) return *real;
  if (const auto* signed_value = std::get_if<std::int64_t>(&value_)) return static_cast<double>(*signed_value);
  if (const auto* unsigned_value = std::get_if<std::uint64_t>(&value_)) return static_cast<double>(*unsigned_value);
  return std::nullopt;
}

bool Json::is_flat() const {
  if (const auto* object = std::get_if<ObjectData>(&value_)) {
    if (object->keys.size() > kFlatObjectMaxMembers) return false;
    for (const auto& value : object->values) {
      if (!is_scalar(value)) return false;
    }
    return true;
  }
  if (const auto* array = std::get_if<ArrayData>(&value_)) {
    for (const auto& value : *array) {
      if (!is_scalar(value)) return false;
    }
  }
  return true;
}

void Json::write(std::string& out, int depth) const {
  if (std::holds_alternative<std::nullptr_t>(value_)) {
    out += "null";
  } else if (const auto* flag = std::get_if<bool>(&value_)) {
    out += *flag ? "true" : "false";
  } else if (const auto* signed_value = std::get_if<std::int64_t>(&value_)) {
    out += std::to_string(*signed_value);
  } else if (const auto* unsigned_value = std::get_if<std::uint64_t>(&value_)) {
    out += std::to_string(*unsigned_value);
  } else if (const auto* real = std::get_if<double>(&value_)) {
    write_double(out, *real);
  } else if (const auto* text = std::get_if<std::string>(&value_)) {
    out += json_quote(*text);
  } else if (const auto* array = std::get_if<ArrayData>(&value_)) {
    if (array->empty()) {
      out += "[]";
      return;
    }
    const bool one_line = is_flat();
    out += '[';
    for (std::size_t i = 0; i < array->size(); ++i) {
      if (i > 0) out += one_line ? ", " : ",";
      if (!one_line) newline(out, depth + 1);
      (*array)[i].write(out, depth + 1);
    }
    if (!one_line) newline(out, depth);
    out += ']';
  } else {
    const auto& object = std::get<ObjectData>(value_);
    if (object.keys.empty()) {
      out += "{}";
      return;
    }
    const bool one_line = is_flat();
    out += '{';
    for (std::size_t i = 0; i < object.keys.size(); ++i) {
      if (i > 0) out += one_line ? ", " : ",";
      if (!one_line) newline(out, depth + 1);
      out += json_quote(object.keys[i]);
      out += ": ";
      object.values[i].write(out, depth + 1);
    }
    if (!one_line) newline(out, depth);
    out += '}';
  }
}

std::string Json::dump() const {
  std::string out;
  write(out, 0);
  out += '\n';
  return out;
}

}  // namespace vgpusim::hwcal
