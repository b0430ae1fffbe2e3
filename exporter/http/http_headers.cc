// Header value parsing.
#include "exporter/http/http_headers.h"

#include <strings.h>

#include <cstdlib>
#include <vector>

namespace scx {

namespace {

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  for (std::size_t end; (end = text.find(separator, begin)) != std::string::npos; begin = end + 1) {
    parts.push_back(text.substr(begin, end - begin));
  }
  parts.push_back(text.substr(begin));
  return parts;
}

}  // namespace

std::string TrimHttpSpace(const std::string& text) {
  const char* kSpace = " \t";
  const std::size_t begin = text.find_first_not_of(kSpace);
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(kSpace) - begin + 1);
}

bool AcceptEncodingAllowsGzip(const std::string& accept_encoding) {
  for (const std::string& element : Split(accept_encoding, ',')) {
    const std::vector<std::string> params = Split(element, ';');
    if (strcasecmp(TrimHttpSpace(params[0]).c_str(), "gzip") != 0) continue;
    double q = 1.0;
    for (std::size_t i = 1; i < params.size(); ++i) {
      const std::string param = TrimHttpSpace(params[i]);
      if (param.size() > 2 && strncasecmp(param.c_str(), "q=", 2) == 0) {
        q = std::strtod(param.c_str() + 2, nullptr);
      }
    }
    return q > 0.0;
  }
  return false;
}

bool ContentLengthsDiffer(const std::vector<std::string>& values) {
  for (const std::string& value : values) {
    if (TrimHttpSpace(value) != TrimHttpSpace(values.front())) return true;
  }
  return false;
}

}  // namespace scx
