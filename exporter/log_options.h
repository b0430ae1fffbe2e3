// The logger's two settings, chosen by --log.level and --log.format.
//
// Thread-safety: plain enums.
#ifndef SCX_EXPORTER_LOG_OPTIONS_H_
#define SCX_EXPORTER_LOG_OPTIONS_H_

namespace scx {

enum class LogFormat { kLogfmt, kJson };
enum class LogLevel { kDebug, kInfo, kWarn, kError };

}  // namespace scx

#endif  // SCX_EXPORTER_LOG_OPTIONS_H_
