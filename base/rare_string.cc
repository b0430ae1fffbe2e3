// A nearly always empty string held as one pointer (rare_string.h).
#include "base/rare_string.h"

#include <memory>
#include <string>
#include <utility>

namespace scx {

namespace {

std::unique_ptr<const std::string> HoldUnlessEmpty(std::string text) {
  if (text.empty()) return nullptr;
  return std::make_unique<const std::string>(std::move(text));
}

}  // namespace

RareString::RareString(std::string text) : text_(HoldUnlessEmpty(std::move(text))) {}

RareString::RareString(const char* text) : RareString(std::string(text)) {}

RareString::RareString(const RareString& other)
    : text_(other.empty() ? nullptr : std::make_unique<const std::string>(*other.text_)) {}

RareString& RareString::operator=(const RareString& other) {
  if (this != &other) *this = RareString(other);
  return *this;
}

const std::string& RareString::str() const {
  static const std::string kEmpty;
  return text_ != nullptr ? *text_ : kEmpty;
}

}  // namespace scx
