// RareString: a string field that is nearly always empty (a brain's display name, the
// note on why its identity is unknown), held as one pointer that is null while the
// string is empty. A record kept for each of 100,000 brains then pays 8 bytes for such
// a field instead of std::string's 32. It reads as a const std::string& (an empty one
// while null); copies are deep, so it is a value like std::string.
#ifndef SCX_BASE_RARE_STRING_H_
#define SCX_BASE_RARE_STRING_H_

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace scx {

class RareString {
 public:
  RareString() = default;
  // Implicit, so that a field of this type is assigned strings as a std::string is.
  RareString(std::string text);  // NOLINT(google-explicit-constructor)
  RareString(const char* text);  // NOLINT(google-explicit-constructor)
  RareString(const RareString& other);
  RareString& operator=(const RareString& other);
  RareString(RareString&& other) noexcept = default;
  RareString& operator=(RareString&& other) noexcept = default;
  ~RareString() = default;

  // The string; an empty one while nothing is held.
  const std::string& str() const;
  operator const std::string&() const { return str(); }  // NOLINT(google-explicit-constructor)
  operator std::string_view() const { return str(); }    // NOLINT(google-explicit-constructor)

  bool empty() const { return text_ == nullptr; }
  std::size_t size() const { return str().size(); }
  const char* c_str() const { return str().c_str(); }
  void clear() { text_.reset(); }

 private:
  // Null while the string is empty: never points to an empty string.
  std::unique_ptr<const std::string> text_;
};

inline bool operator==(const RareString& a, const RareString& b) { return a.str() == b.str(); }
inline bool operator!=(const RareString& a, const RareString& b) { return !(a == b); }
inline bool operator<(const RareString& a, const RareString& b) { return a.str() < b.str(); }
inline std::ostream& operator<<(std::ostream& out, const RareString& text) {
  return out << text.str();
}

}  // namespace scx

#endif  // SCX_BASE_RARE_STRING_H_
