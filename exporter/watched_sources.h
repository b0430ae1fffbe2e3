// Says, at start and on every config load, what the exporter watches: the m1nd
// registries, runtime globs and static brains. A default registry that does not
// exist gets one warn line here, since discovery treats it as quietly empty.
#ifndef SCX_EXPORTER_WATCHED_SOURCES_H_
#define SCX_EXPORTER_WATCHED_SOURCES_H_

#include "engine/discovery/discovery.h"
#include "exporter/logger.h"

namespace scx {

void LogWatchedSources(const DiscoveryConfig& config, Logger* logger);

}  // namespace scx

#endif  // SCX_EXPORTER_WATCHED_SOURCES_H_
