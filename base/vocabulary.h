// A label vocabulary: one table of {value, name} per enum whose values reach metrics,
// JSON, logs, the landing page or the docs, defined once beside its enum. Every list
// of values elsewhere iterates the table, so a value added to an enum and its table is
// exported, rendered and documented everywhere at once; tests/engine/vocabulary_test.cc fails
// until it is. The tables are listed in engine/vocabulary.h.
//
// Thread-safety: constant data and pure functions.
#ifndef SCX_BASE_VOCABULARY_H_
#define SCX_BASE_VOCABULARY_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace scx {

template <typename Enum>
struct Term {
  Enum value;
  const char* name;  // as it appears in labels, JSON and logs
};

// The name of `value` in `terms`; "" when the table lacks it (tests/engine/vocabulary_test.cc
// proves every table complete).
template <typename Enum, std::size_t N>
constexpr const char* NameOf(const Term<Enum> (&terms)[N], Enum value) {
  for (const Term<Enum>& term : terms) {
    if (term.value == value) return term.name;
  }
  return "";
}

// The value named `name` in `terms`, for parsing a flag or a setting; false when no
// term has that name.
template <typename Enum, std::size_t N>
bool ValueOf(const Term<Enum> (&terms)[N], std::string_view name, Enum* value) {
  for (const Term<Enum>& term : terms) {
    if (name == term.name) {
      *value = term.value;
      return true;
    }
  }
  return false;
}

// The names of `terms` in table order, joined with ", " and " or " before the last
// ("auto, host or sandbox"), for help texts and error messages.
template <typename Enum, std::size_t N>
std::string NamesOf(const Term<Enum> (&terms)[N]) {
  std::string names;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) names += i + 1 == N ? " or " : ", ";
    names += terms[i].name;
  }
  return names;
}

}  // namespace scx

#endif  // SCX_BASE_VOCABULARY_H_
