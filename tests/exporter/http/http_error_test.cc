// The one JSON error body (exporter/http/http_error.h): its shape, the errorType of
// each status, escaping and capping of the message.
#include "exporter/http/http_error.h"

#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace scx {
namespace {

using Json = nlohmann::json;

TEST(HttpErrorTest, BodyIsPrometheusShapedJsonOnOneLine) {
  EXPECT_EQ(ErrorBody(404, "no brain named \"x\""),
            "{\"status\":\"error\",\"errorType\":\"not_found\",\"error\":\"no brain named "
            "\\\"x\\\"\"}\n");
}

TEST(HttpErrorTest, ResponseCarriesStatusJsonTypeAndBody) {
  const HttpResponse response = ErrorResponse(503, "the first scan has not completed yet");
  EXPECT_EQ(response.status, 503);
  EXPECT_EQ(response.content_type, "application/json");
  EXPECT_EQ(response.Body(), ErrorBody(503, "the first scan has not completed yet"));
  EXPECT_TRUE(response.headers.empty());
  const Json parsed = Json::parse(response.Body());
  EXPECT_EQ(parsed["status"], "error");
  EXPECT_EQ(parsed["errorType"], "unavailable");
  EXPECT_EQ(parsed["error"], "the first scan has not completed yet");
}

TEST(HttpErrorTest, ErrorTypeFollowsTheStatus) {
  const std::map<int, std::string> expected = {
      {400, "bad_data"},          {401, "unauthorized"},       {403, "forbidden"},
      {404, "not_found"},         {405, "method_not_allowed"}, {413, "payload_too_large"},
      {429, "too_many_requests"}, {500, "internal"},           {503, "unavailable"},
      {418, "bad_data"},          {502, "internal"},
  };
  for (const auto& [status, type] : expected) EXPECT_EQ(ErrorType(status), type) << status;
}

TEST(HttpErrorTest, MessageIsEscapedAndMadeValidUtf8) {
  const std::string body = ErrorBody(404, std::string("a\\b\n\x01\xff\0z", 8));
  const Json parsed = Json::parse(body);  // throws on invalid JSON or UTF-8
  EXPECT_EQ(parsed["error"], std::string("a\\b\n\x01\xEF\xBF\xBD") + std::string(1, '\0') + "z");
}

TEST(HttpErrorTest, LongMessageIsCapped) {
  const std::string body = ErrorBody(404, std::string(3 * kMaxErrorMessageBytes, 'n'));
  const std::string error = Json::parse(body)["error"];
  EXPECT_LT(error.size(), kMaxErrorMessageBytes + 64);
  EXPECT_NE(error.find("bytes cut]"), std::string::npos) << error.substr(error.size() - 40);
}

}  // namespace
}  // namespace scx
