// A request's query string as the handlers read it: its name=value pairs, in order,
// each name and value percent-decoded ('+' is a space, as HTML forms send it). Pure.
#ifndef SCX_EXPORTER_HTTP_QUERY_STRING_H_
#define SCX_EXPORTER_HTTP_QUERY_STRING_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scx {

// Name and value, decoded; a pair without '=' has an empty value.
using QueryParams = std::vector<std::pair<std::string, std::string>>;

// The pairs of `query` (without the '?'), split at '&', in their order; empty pairs
// ("a=1&&b=2") are skipped. A '%' not followed by two hex digits is kept as it is.
QueryParams ParseQuery(std::string_view query);

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_QUERY_STRING_H_
