// A log field's value: text, a number or a boolean. logfmt writes all three as text;
// JSON writes a number as a JSON number and a boolean as true or false. What a value
// is comes from the C++ type the call site passes, never from its text: a brain named
// "42" stays a string, and a count is a number however it reads.
#ifndef SCX_EXPORTER_LOG_VALUE_H_
#define SCX_EXPORTER_LOG_VALUE_H_

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace scx {

class LogValue {
 public:
  enum class Kind { kText, kNumber, kBool };

  // Text, from whatever holds text. Implicit, so that a field reads {"brain", name}.
  LogValue(std::string text);       // NOLINT(google-explicit-constructor)
  LogValue(const char* text);       // NOLINT(google-explicit-constructor)
  LogValue(std::string_view text);  // NOLINT(google-explicit-constructor)

  // A number, from an integer (not bool or char) or a floating-point value: {"brains",
  // result.brains.size()}. Templates, so that nothing converts into one (a pointer
  // does not become a boolean, a char stays out).
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                             !std::is_same_v<T, char>,
                                         int> = 0>
  LogValue(T number)  // NOLINT(google-explicit-constructor)
      : kind_(Kind::kNumber), text_(std::to_string(number)) {}
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  LogValue(T number)  // NOLINT(google-explicit-constructor)
      : LogValue(FromDouble(static_cast<double>(number))) {}

  // A boolean: true or false.
  template <typename T, std::enable_if_t<std::is_same_v<T, bool>, int> = 0>
  LogValue(T value)  // NOLINT(google-explicit-constructor)
      : kind_(Kind::kBool), text_(value ? "true" : "false") {}

  Kind kind() const { return kind_; }
  // As logfmt writes it (before quoting): the text, the number's shortest decimal
  // form, "true" or "false".
  const std::string& text() const { return text_; }

 private:
  LogValue(Kind kind, std::string text) : kind_(kind), text_(std::move(text)) {}
  // The shortest form that reads back as `number`; NaN and the infinities, which JSON
  // has no number for, are text ("NaN", "+Inf", "-Inf", as Prometheus writes them).
  static LogValue FromDouble(double number);

  Kind kind_;
  std::string text_;
};

}  // namespace scx

#endif  // SCX_EXPORTER_LOG_VALUE_H_
