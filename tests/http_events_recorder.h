// An HttpEvents that records what the HTTP server reports, for the http layer's tests
// (the application counts the same events in prometheus-cpp counters: self_metrics).
#ifndef SCX_TESTS_HTTP_EVENTS_RECORDER_H_
#define SCX_TESTS_HTTP_EVENTS_RECORDER_H_

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "exporter/http/http_events.h"

namespace scx {
namespace testing {

class HttpEventsRecorder : public HttpEvents {
 public:
  void OnRequest(const std::string& handler, int status) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++requests_[{handler, status}];
  }
  void OnAuthFailure(AuthFailure reason) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++auth_failures_[reason];
  }
  void OnTlsHandshakeFailure() override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++tls_handshake_failures_;
  }

  // How many of each so far.
  int requests(const std::string& handler, int status) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = requests_.find({handler, status});
    return it == requests_.end() ? 0 : it->second;
  }
  int all_requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    int total = 0;
    for (const auto& [key, count] : requests_) total += count;
    return total;
  }
  int auth_failures(AuthFailure reason) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = auth_failures_.find(reason);
    return it == auth_failures_.end() ? 0 : it->second;
  }
  int tls_handshake_failures() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return tls_handshake_failures_;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, int> requests_;
  std::map<AuthFailure, int> auth_failures_;
  int tls_handshake_failures_ = 0;
};

}  // namespace testing
}  // namespace scx

#endif  // SCX_TESTS_HTTP_EVENTS_RECORDER_H_
