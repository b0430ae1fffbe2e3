// Log lines written to a file through a real Logger and read back, for tests of what
// the exporter logs (scan_log_test, scan_loop_test).
#ifndef SCX_TESTS_CAPTURED_LOG_H_
#define SCX_TESTS_CAPTURED_LOG_H_

#include <cstdio>
#include <string>

#include "exporter/logger.h"
#include "tests/test_support.h"

namespace scx {
namespace testing {

// The logger writes and flushes each line under its own lock; text() reads the file
// through its own descriptor, so reading while a scan thread logs shares no memory
// with the writer.
class CapturedLog {
 public:
  explicit CapturedLog(LogLevel level)
      : file_(std::fopen(dir_.Join("log").c_str(), "w")),
        logger_(level, LogFormat::kLogfmt, file_) {}
  ~CapturedLog() { std::fclose(file_); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  Logger* logger() { return &logger_; }
  std::string text() const { return ReadFile(dir_.Join("log")); }

 private:
  TempDir dir_;
  std::FILE* file_;
  Logger logger_;
};

}  // namespace testing
}  // namespace scx

#endif  // SCX_TESTS_CAPTURED_LOG_H_
