// Label vocabularies (base/vocabulary.h): each enum whose values reach metrics, JSON,
// logs, the landing page or the docs has one table of {value, name}, defined once
// beside the enum: BrainState and StorePresence in scanner.h, StoreError in
// store_reader.h, BrainSource and DiscoveryProblemSource in discovery/types.h,
// IdentitySource in discovery/owner_identity.h, DiscoveryView in
// discovery/visibility.h, and, outside the engine, AuthFailure in
// exporter/http/basic_auth.h. Every list of values elsewhere iterates the table, so a
// value added to an enum and its table is exported, rendered and documented everywhere
// at once; tests/engine/vocabulary_test.cc fails until it is.
//
// Thread-safety: constant data and pure functions.
#ifndef SCX_ENGINE_VOCABULARY_H_
#define SCX_ENGINE_VOCABULARY_H_

#include "base/vocabulary.h"

#endif  // SCX_ENGINE_VOCABULARY_H_
