// Splitting and decoding a query string with civetweb's decoder.
#include "exporter/http/query_string.h"

#include <civetweb.h>

namespace scx {

namespace {

// `text` percent-decoded as a form field (civetweb's mg_url_decode).
std::string Decode(std::string_view text) {
  std::string out(text.size() + 1, '\0');  // decoding never makes text longer
  const int length = mg_url_decode(text.data(), static_cast<int>(text.size()), out.data(),
                                   static_cast<int>(out.size()), /*is_form_url_encoded=*/1);
  out.resize(length < 0 ? 0 : static_cast<std::size_t>(length));
  return out;
}

}  // namespace

QueryParams ParseQuery(std::string_view query) {
  QueryParams params;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const std::size_t equals = pair.find('=');
    if (equals == std::string_view::npos) {
      params.emplace_back(Decode(pair), "");
    } else {
      params.emplace_back(Decode(pair.substr(0, equals)), Decode(pair.substr(equals + 1)));
    }
  }
  return params;
}

}  // namespace scx
