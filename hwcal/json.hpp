// A tiny ordered JSON value and writer for the raw calibration files.
// Hand-written so that hwcal builds standalone (no third-party JSON library on the GPU machine).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace vgpusim::hwcal {

class Json {
 public:
  struct ObjectData {
    std::vector<std::string> keys;  // insertion order is kept: files diff well and read top-down
    std::vector<Json> values;
  };
  using ArrayData = std::vector<Json>;

  Json() = default;  // null
  Json(std::nullptr_t) {}
  Json(bool value) : value_(value) {}
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  Json(T value) {
    if constexpr (std::signed_integral<T>) {
      value_ = static_cast<std::int64_t>(value);
    } else {
      value_ = static_cast<std::uint64_t>(value);
    }
  }
  template <std::floating_point T>
  Json(T value) : value_(static_cast<double>(value)) {}
  Json(const char* text) : value_(std::string(text)) {}
  Json(std::string text) : value_(std::move(text)) {}
  Json(std::string_view text) : value_(std::string(text)) {}

  static Json object() { return Json(ObjectData{}); }
  static Json array() { return Json(ArrayData{}); }
  template <typename Range>
  static Json array_of(const Range& items) {
    Json out = array();
    for (const auto& item : items) out.push(Json(item));
    return out;
  }

  // Object: replaces the value of an existing key, else appends. Turns a null into an object.
  Json& set(std::string_view key, Json value);
  // Array: appends. Turns a null into an array.
  Json& push(Json value);

  bool is_null() const { return std::holds_alternative<std::nullptr_t>(value_); }
  bool is_object() const { return std::holds_alternative<ObjectData>(value_); }
  bool is_array() const { return std::holds_alternative<ArrayData>(value_); }
  std::size_t size() const;  // members or elements; 0 for scalars
  const Json* find(std::string_view key) const;  // nullptr when absent or not an object
  const ArrayData& elements() const;             // empty for non-arrays
  std::optional<double> number() const;          // integers and doubles; nullopt otherwise

  // Pretty text: objects indented; arrays of scalars and small flat objects on one line.
  std::string dump() const;

 private:
  explicit Json(ObjectData data) : value_(std::move(data)) {}
  explicit Json(ArrayData data) : value_(std::move(data)) {}
  bool is_flat() const;  // scalar, or container holding only scalars
  void write(std::string& out, int depth) const;

  std::variant<std::nullptr_t, bool, std::int64_t, std::uint64_t, double, std::string, ArrayData, ObjectData> value_;
};

// JSON string literal with quotes and escapes (control characters as \u00XX).
std::string json_quote(std::string_view text);

}  // namespace vgpusim::hwcal
