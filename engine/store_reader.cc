// Reads system_blocks.json through untrusted_file (stat, open non-blocking, read to EOF,
// close) straight into a padded buffer, then parses it with simdjson's on-demand API.
//
// What the parse checks. simdjson's first stage checks the whole file: UTF-8, closed
// strings, no raw control characters in strings. The walk then visits the keys of the
// root object, of the skeleton and its ratification, of every block and of
// unmapped_policy (each matched as written, decoded only when that fails: an escape or
// an unknown key), reads the values of schema, store_version, skeleton_id, block_id,
// the skeleton's version and the states, and checks that unmapped_policy is an object.
// Keys are matched after decoding escapes, and any of the seven keys the verdict reads
// twice in one object is a parse error, as serde (m1nd's parser) has it; so is one of
// the optional top-level fields twice. A key m1nd's newest store types do not know
// in one of those objects is a schema error: those types deny unknown fields, so m1nd
// cannot load the store. So are a skeleton or block state m1nd's enums do not know and
// a skeleton version above u32. The objects nested in a block are not looked into (see
// "What m1nd's store types accept" below for why). Every other value (paths, names,
// numbers, nested objects, optional fields) is skipped by simdjson, which only counts
// brackets: a syntax error inside a skipped value (`[1 2]`, `tru`) goes unreported, and
// a skipped value may nest to any depth (the skip is a loop, not a recursion). A torn
// file is always kParse: its brackets cannot balance, the root must close with its
// last brace and only whitespace may follow it.
//
// No block id is copied while walking: the walk holds the skeleton id and the block
// ids as views into simdjson's string buffer (valid until the parser's next document)
// in a reusable per-thread list, and the digest is worked out from them at the end,
// whatever the order of `skeleton` and `blocks` in the file.
#include "engine/store_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "base/untrusted_file.h"
#include "base/utf8.h"

namespace scx {

namespace {

namespace ondemand = simdjson::ondemand;

// ---------------------------------------------------------------------------------
// What a thread reuses from one read to the next.

// The capacity to grow to when `current` is smaller than `needed`: a quarter more than
// `current` at least, rounded up to 64 KiB. Stores a few bytes apart read in a row
// then share one buffer and one parser; growing to the exact size gave a thread a new
// buffer and a new parser, fresh memory, for every store larger than the largest it
// had read (docs/performance.md). Room never written is never faulted in: it costs
// address space, not resident memory.
std::size_t GrownCapacity(std::size_t current, std::size_t needed) {
  constexpr std::size_t kGranule = std::size_t{64} << 10;
  const std::size_t wanted = std::max(needed, current + current / 4);
  return (wanted + kGranule - 1) / kGranule * kGranule;
}

// A heap buffer with SIMDJSON_PADDING bytes after its capacity, reused across reads
// by one thread. Never zero-filled: reads land straight in it. It starts on a cache
// line: the kernel's copy into a buffer that does not (malloc's 16-byte alignment) ran
// at half the speed on the x86-64 machine of docs/performance.md.
class PaddedBuffer final : public UntrustedFileBuffer {
 public:
  // Makes room for `capacity` bytes, keeping the first `keep` bytes.
  bool Reserve(std::size_t capacity, std::size_t keep) override {
    if (capacity <= capacity_) return true;
    capacity = GrownCapacity(capacity_, capacity);
    const std::size_t bytes = RoundUp(capacity + simdjson::SIMDJSON_PADDING);
    std::unique_ptr<char, FreeDeleter> grown(
        static_cast<char*>(std::aligned_alloc(kCacheLineBytes, bytes)));
    if (grown == nullptr) return false;
    if (keep > 0) std::memcpy(grown.get(), data_.get(), keep);
    data_ = std::move(grown);
    capacity_ = capacity;
    return true;
  }
  void Release() {
    data_.reset();
    capacity_ = 0;
  }
  // Zeroes the SIMDJSON_PADDING bytes after the first `size`.
  void Pad(std::size_t size) { std::memset(data_.get() + size, 0, simdjson::SIMDJSON_PADDING); }
  char* data() override { return data_.get(); }
  std::size_t capacity() const override { return capacity_; }

 private:
  static constexpr std::size_t kCacheLineBytes = 64;
  struct FreeDeleter {
    void operator()(char* data) const { std::free(data); }
  };
  // aligned_alloc wants a multiple of the alignment.
  static std::size_t RoundUp(std::size_t bytes) {
    return (bytes + kCacheLineBytes - 1) / kCacheLineBytes * kCacheLineBytes;
  }

  std::unique_ptr<char, FreeDeleter> data_;
  std::size_t capacity_ = 0;
};

// The read buffer, the parser and the list of block id views of one thread. They grow
// to the largest store the thread has read and stay so until ReleaseStoreReaderMemory
// or the thread's end: a scan reads many stores in a row, and fresh memory for each
// large one cost more than its parse (docs/performance.md).
struct ThreadReader {
  PaddedBuffer buffer;
  ondemand::parser parser;
  std::vector<std::string_view> views;
};

ThreadReader& ThisThreadReader() {
  thread_local ThreadReader reader;
  return reader;
}

// What ReleaseStoreReaderMemory leaves a thread: room for a store of 1 MiB (about
// 7 MiB in all; the parser needs ~6 bytes per input byte) and for 65,536 block ids.
constexpr std::size_t kKeptStoreBytes = std::size_t{1} << 20;
constexpr std::size_t kKeptBlockIdViews = std::size_t{1} << 16;

// ---------------------------------------------------------------------------------
// Parsing.

// The optional top-level fields of m1nd's newest SystemBlockStore (m1nd-mcp's
// system_blocks.rs), beside the five required ones. The struct denies every other
// top-level field, so a store with one is a store m1nd cannot load. Nothing in them
// is read.
constexpr std::string_view kOptionalStoreFields[] = {
    "unmapped_files", "unmapped_total", "candidate_revision", "curating_by", "curating_until",
};
constexpr std::size_t kOptionalStoreFieldCount =
    sizeof(kOptionalStoreFields) / sizeof(kOptionalStoreFields[0]);

// How much of an unknown key a message quotes: it comes from the file.
constexpr std::size_t kMaxKeyInMessage = 64;

// ---------------------------------------------------------------------------------
// What m1nd's store types accept in the skeleton and the blocks.
//
// Every struct of m1nd's store (m1nd-mcp's system_blocks.rs, the newest copy read)
// denies unknown fields. The walk checks the keys of the objects it visits anyway or
// that come once a store: the root, the skeleton and its ratification, each block and
// unmapped_policy; a key outside these lists there fails m1nd's load and is kSchema.
// The lists name each struct's fields, optional ones included, in m1nd's order.
//
// The objects nested in a block (membership entries, sockets, the receipt contract and
// its requirements, receipts, layout, candidate_meta) are skipped unread, their keys
// unchecked: visiting them key by key instead of skipping them cost 47% more CPU on a
// cold scan of 100 stores x 2,000 blocks, 17% on 1,000 x 50 and 9% on 10,000 x 10
// (bench/run.py's fleets, 2026-12-05), against the 5% the issue allows. A store whose
// only fault is there gets a verdict m1nd would not give (docs/verdict.md).
struct Shape;

// A field the walk reads itself rather than only checking its key.
enum class FieldRole { kChecked, kBlockId, kState, kSkeletonId, kSkeletonVersion };

// A field's name followed by its closing quote, as the raw bytes of a key spelled
// without escapes, in 64-bit words as an unaligned little-endian load reads them (the
// first byte lowest), with a mask of the bytes that count.
struct KeyPattern {
  static constexpr std::size_t kWords = 3;  // names of up to 23 characters
  std::uint64_t bits[kWords] = {};
  std::uint64_t mask[kWords] = {};
  std::size_t words = 0;

  constexpr explicit KeyPattern(std::string_view name) {
    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "KeyPattern assumes little-endian");
    if (name.size() + 1 > kWords * 8) throw "a field name longer than KeyPattern holds";
    for (std::size_t i = 0; i <= name.size(); ++i) {
      const unsigned char byte = i < name.size() ? static_cast<unsigned char>(name[i]) : '"';
      bits[i / 8] |= std::uint64_t{byte} << (8 * (i % 8));
      mask[i / 8] |= std::uint64_t{0xff} << (8 * (i % 8));
    }
    words = name.size() / 8 + 1;
  }
};

struct FieldShape {
  constexpr FieldShape(std::string_view field_name, FieldRole field_role = FieldRole::kChecked,
                       const Shape* nested_shape = nullptr)
      : name(field_name), pattern(field_name), role(field_role), nested(nested_shape) {}

  std::string_view name;
  KeyPattern pattern;
  FieldRole role;
  const Shape* nested;  // when not null, the value is an object whose keys are checked
};

struct Shape {
  const char* where;  // for messages
  const FieldShape* fields;
  std::size_t count;
};

template <std::size_t N>
constexpr Shape MakeShape(const char* where, const FieldShape (&fields)[N]) {
  return Shape{where, fields, N};
}

// A block's fields, in m1nd's order (see FieldCursor).
constexpr FieldShape kBlockFields[] = {{"block_id", FieldRole::kBlockId},
                                       {"name"},
                                       {"purpose"},
                                       {"kind"},
                                       {"state", FieldRole::kState},
                                       {"boundary_version"},
                                       {"contract_version"},
                                       {"membership_source"},
                                       {"membership"},
                                       {"sockets"},
                                       {"receipt_contract"},
                                       {"receipts"},
                                       {"layout"},
                                       {"unmapped_residue"},
                                       {"membership_fingerprint"},
                                       {"resolved_members"},
                                       {"pre_archive_state"},
                                       {"candidate_meta"}};
constexpr Shape kBlock = MakeShape("a block", kBlockFields);

constexpr FieldShape kRatificationFields[] = {
    {"method"}, {"ratifier"}, {"ratified_at"}, {"commit"}};
constexpr Shape kRatification = MakeShape("\"skeleton.ratification\"", kRatificationFields);

constexpr FieldShape kSkeletonFields[] = {{"skeleton_id", FieldRole::kSkeletonId},
                                          {"version", FieldRole::kSkeletonVersion},
                                          {"state", FieldRole::kState},
                                          {"ratification", FieldRole::kChecked, &kRatification}};
constexpr Shape kSkeleton = MakeShape("\"skeleton\"", kSkeletonFields);

constexpr FieldShape kUnmappedPolicyFields[] = {{"visible"}, {"default_action"}};
constexpr Shape kUnmappedPolicy = MakeShape("\"unmapped_policy\"", kUnmappedPolicyFields);

// The states m1nd's enums know, in their JSON spelling.
constexpr std::string_view kSkeletonStates[] = {"candidate", "ratified"};
constexpr std::string_view kBlockStates[] = {"candidate", "planned", "building", "scanned",
                                             "ratified",  "drifted", "archived", "restored"};

const FieldShape* FindField(const Shape& shape, std::string_view key) {
  for (std::size_t i = 0; i < shape.count; ++i) {
    if (shape.fields[i].name == key) return &shape.fields[i];
  }
  return nullptr;
}

// True when the raw key (a pointer just past its opening quote, into simdjson's padded
// buffer) is `name` as written, with no escape: its bytes, then the closing quote. It
// reads up to 24 bytes: the document goes on after a key (a colon and a value at
// least) and simdjson's padding (64 bytes) after that.
bool SpelledAs(const char* raw, const KeyPattern& pattern) {
  for (std::size_t i = 0; i < pattern.words; ++i) {
    std::uint64_t word;
    std::memcpy(&word, raw + 8 * i, sizeof(word));
    if ((word & pattern.mask[i]) != pattern.bits[i]) return false;
  }
  return true;
}

// Matches the keys of one object against its shape's fields, trying first the field
// after the last one matched: m1nd (serde) writes a struct's fields in their declared
// order, which the shapes follow, so a key is almost always matched at the first
// comparison. A key in another order is still found: the search goes round once.
class FieldCursor {
 public:
  explicit FieldCursor(const Shape& shape) : shape_(shape) {}

  // The field the raw key spells as written, or null (an escaped or unknown key).
  const FieldShape* Match(const char* raw) {
    for (std::size_t tried = 0; tried < shape_.count; ++tried) {
      const FieldShape& field = shape_.fields[next_];
      next_ = next_ + 1 == shape_.count ? 0 : next_ + 1;
      if (SpelledAs(raw, field.pattern)) return &field;
    }
    return nullptr;
  }

 private:
  const Shape& shape_;
  std::size_t next_ = 0;
};

template <std::size_t N>
bool OneOf(const std::string_view (&names)[N], std::string_view value) {
  return std::find(std::begin(names), std::end(names), value) != std::end(names);
}

// Walks one document with simdjson's on-demand API, reading only the fields the
// exporter needs; every other value is skipped by simdjson as the walk moves past it.
// Syntax errors win over schema errors: the first schema problem is remembered and the
// walk goes on, so a torn file is always kParse even when its shape is also wrong.
// The views it collects are valid while the document is.
class StoreWalker {
 public:
  StoreWalker(ondemand::document* doc, const char* base, std::vector<std::string_view>* block_ids)
      : doc_(doc), base_(base), block_ids_(block_ids) {
    block_ids_->clear();
  }

  StoreError Walk(std::string* message);

  // After a good Walk: the fields read.
  std::uint64_t store_version() const { return store_version_; }
  std::string_view skeleton_id() const { return skeleton_id_; }

 private:
  // Records the first syntax error; returns false so callers can `return Syntax(...)`.
  bool Syntax(simdjson::error_code error, const char* where);
  // A key the verdict relies on appears twice in one object: a parse error, as serde
  // (m1nd's parser) reports it. Returns false.
  bool Duplicate(const char* key, const char* where);
  // The key of `field`, escapes decoded (serde decodes them before matching).
  bool KeyOf(ondemand::field& field, const char* where, std::string_view* key);
  void SchemaError(std::string message);
  // Consumes a value whose type() said null: false (a syntax error) unless it is the
  // whole `null` atom, which the skip of an unread value would not check.
  bool ReadNull(ondemand::value& value, const char* where);

  bool RootObject();
  bool RootOther(ondemand::json_type type);
  bool ReadField(ondemand::field& field);
  // Marks a top-level key as seen; false (a duplicate) when it already was.
  bool Once(bool* seen, const char* key);
  bool ReadSchema(ondemand::value& value);
  bool ReadStoreVersion(ondemand::value& value);
  bool ReadSkeleton(ondemand::value& value);
  bool ReadBlocks(ondemand::value& value);
  bool CheckUnmappedPolicy(ondemand::value& value);
  bool ReadBlock(ondemand::value& value, std::size_t index);
  // The keys of an object of `shape`, and of the objects nested in it, against the
  // fields m1nd's types know; an unknown one is a schema error.
  bool CheckObject(ondemand::value& value, const Shape& shape);
  bool CheckField(ondemand::value& value, const FieldShape& field);
  bool UnknownField(std::string_view key, const char* where);
  // A state field: a string among `states`, else a schema error.
  template <std::size_t N>
  bool ReadState(ondemand::value& value, const char* where, const std::string_view (&states)[N]);
  bool ReadSkeletonVersion(ondemand::value& value);
  // A number read as an unsigned 64-bit integer into `*out`; `*fits` is false for a
  // valid number of another kind. False (a syntax error) for a broken number.
  bool ReadUnsigned(ondemand::value& value, const char* where, bool* fits, std::uint64_t* out);
  // The field of `shape` the key of `field` names, through `cursor`; null for a key
  // m1nd does not know there (then a schema error is recorded). False on a syntax error.
  bool MatchKey(ondemand::field& field, FieldCursor* cursor, const Shape& shape,
                const FieldShape** known);
  // MatchKey's slow path, for a key not spelled as written in `shape`.
  bool MatchDecodedKey(ondemand::field& field, const Shape& shape, const FieldShape** known);
  // Sets `*is_string` and, when it is one, points `*out` at the decoded string.
  bool ReadString(ondemand::value& value, const char* where, bool* is_string,
                  std::string_view* out);

  ondemand::document* doc_;
  const char* base_;
  std::vector<std::string_view>* block_ids_;  // in file order
  std::uint64_t store_version_ = 0;
  std::string_view skeleton_id_;
  simdjson::error_code syntax_error_ = simdjson::SUCCESS;
  std::string syntax_message_;
  std::string schema_message_;
  struct {
    bool schema = false;
    bool store_version = false;
    bool skeleton = false;
    bool blocks = false;
    bool unmapped_policy = false;
    bool optional[kOptionalStoreFieldCount] = {};
  } seen_;  // top-level keys met so far
};

bool StoreWalker::Syntax(simdjson::error_code error, const char* where) {
  if (syntax_error_ != simdjson::SUCCESS) return false;
  syntax_error_ = error;
  syntax_message_ = std::string("invalid JSON in ") + where + ": " + simdjson::error_message(error);
  const char* location = nullptr;
  if (doc_->current_location().get(location) == simdjson::SUCCESS) {
    syntax_message_ += " (near byte " + std::to_string(location - base_) + ")";
  }
  return false;
}

bool StoreWalker::Duplicate(const char* key, const char* where) {
  if (syntax_error_ != simdjson::SUCCESS) return false;
  syntax_error_ = simdjson::UNEXPECTED_ERROR;
  syntax_message_ = std::string("duplicate field \"") + key + "\" in " + where;
  const char* location = nullptr;
  if (doc_->current_location().get(location) == simdjson::SUCCESS) {
    syntax_message_ += " (near byte " + std::to_string(location - base_) + ")";
  }
  return false;
}

// The length of the key starting at `raw` (just after its opening quote), or npos when
// it holds an escape. A key is a complete string token: its closing quote ends the scan.
std::size_t PlainKeyLength(const char* raw) {
  for (std::size_t length = 0;; ++length) {
    if (raw[length] == '"') return length;
    if (raw[length] == '\\') return std::string_view::npos;
  }
}

bool StoreWalker::KeyOf(ondemand::field& field, const char* where, std::string_view* key) {
  const char* raw = field.key().raw();
  const std::size_t length = PlainKeyLength(raw);
  if (length != std::string_view::npos) {
    *key = std::string_view(raw, length);
    return true;
  }
  simdjson::error_code error = field.unescaped_key().get(*key);
  return error ? Syntax(error, where) : true;
}

void StoreWalker::SchemaError(std::string message) {
  if (schema_message_.empty()) schema_message_ = std::move(message);
}

bool StoreWalker::ReadNull(ondemand::value& value, const char* where) {
  bool is_null = false;
  const simdjson::error_code error = value.is_null().get(is_null);
  if (error || !is_null) return Syntax(error ? error : simdjson::N_ATOM_ERROR, where);
  return true;
}

bool StoreWalker::ReadString(ondemand::value& value, const char* where, bool* is_string,
                             std::string_view* out) {
  ondemand::json_type type;
  simdjson::error_code error = value.type().get(type);
  if (error) return Syntax(error, where);
  *is_string = type == ondemand::json_type::string;
  if (!*is_string) return true;  // left unconsumed: skipped by the enclosing iteration
  error = value.get_string().get(*out);
  return error ? Syntax(error, where) : true;
}

bool StoreWalker::ReadSchema(ondemand::value& value) {
  bool is_string = false;
  std::string_view schema;
  if (!ReadString(value, "\"schema\"", &is_string, &schema)) return false;
  if (!is_string) {
    SchemaError("\"schema\" is not a string");
  } else if (schema != kStoreSchema) {
    SchemaError("unsupported schema \"" + std::string(schema) + "\" (want \"" + kStoreSchema +
                "\")");
  }
  return true;
}

// m1nd's store_version is a u64: serde takes 0 to 2^64 - 1 and refuses a negative
// number, a fraction or exponent (7.0, 1e3) and anything larger as a wrong type.
bool StoreWalker::ReadStoreVersion(ondemand::value& value) {
  ondemand::json_type type;
  simdjson::error_code error = value.type().get(type);
  if (error) return Syntax(error, "\"store_version\"");
  if (type == ondemand::json_type::null) {
    if (!ReadNull(value, "\"store_version\"")) return false;
    SchemaError("\"store_version\" is null (m1nd cannot load a store without it)");
    return true;
  }
  if (type != ondemand::json_type::number) {
    SchemaError("\"store_version\" is not an unsigned 64-bit integer");
    return true;
  }
  bool fits = false;
  if (!ReadUnsigned(value, "\"store_version\"", &fits, &store_version_)) return false;
  if (!fits) SchemaError("\"store_version\" is not an unsigned 64-bit integer");
  return true;
}

bool StoreWalker::ReadUnsigned(ondemand::value& value, const char* where, bool* fits,
                               std::uint64_t* out) {
  *fits = value.get_uint64().get(*out) == simdjson::SUCCESS;
  if (*fits) return true;
  // get_uint64 fails alike on a valid number that is no u64 ("-1", "7.5", 2^64: the
  // wrong type) and on a broken one ("1.", "-": bad JSON), and leaves the value unread.
  // Parsing it as a double tells them apart as serde does, which reads an integer past
  // 2^64 - 1 as a float; get_number would not: simdjson refuses such an integer.
  double ignored;
  const simdjson::error_code error = value.get_double().get(ignored);
  return error ? Syntax(error, where) : true;
}

bool StoreWalker::ReadSkeleton(ondemand::value& value) {
  skeleton_id_ = std::string_view();
  ondemand::json_type type;
  simdjson::error_code error = value.type().get(type);
  if (error) return Syntax(error, "\"skeleton\"");
  if (type == ondemand::json_type::null) {
    if (!ReadNull(value, "\"skeleton\"")) return false;
    SchemaError("\"skeleton\" is null (m1nd cannot load a store without a skeleton)");
    return true;
  }
  if (type != ondemand::json_type::object) {
    SchemaError("\"skeleton\" is not an object");
    return true;
  }
  ondemand::object object;
  error = value.get_object().get(object);
  if (error) return Syntax(error, "\"skeleton\"");
  bool has_id = false;
  bool seen_id = false;
  FieldCursor cursor(kSkeleton);
  for (auto&& field_result : object) {
    error = field_result.error();
    if (error) return Syntax(error, "\"skeleton\"");
    ondemand::field& field = field_result.value_unsafe();
    const FieldShape* known = nullptr;
    if (!MatchKey(field, &cursor, kSkeleton, &known)) return false;
    if (known == nullptr) continue;  // unknown: recorded, the value skipped
    switch (known->role) {
      case FieldRole::kSkeletonId:
        if (seen_id) return Duplicate("skeleton_id", "\"skeleton\"");
        seen_id = true;
        if (!ReadString(field.value(), "\"skeleton.skeleton_id\"", &has_id, &skeleton_id_)) {
          return false;
        }
        if (!has_id) skeleton_id_ = std::string_view();
        break;
      case FieldRole::kState:
        if (!ReadState(field.value(), "\"skeleton.state\"", kSkeletonStates)) return false;
        break;
      case FieldRole::kSkeletonVersion:
        if (!ReadSkeletonVersion(field.value())) return false;
        break;
      default:
        if (!CheckField(field.value(), *known)) return false;
    }
  }
  if (!has_id) SchemaError("\"skeleton.skeleton_id\" is missing or not a string");
  return true;
}

bool StoreWalker::UnknownField(std::string_view key, const char* where) {
  if (!schema_message_.empty()) return true;  // the first one is reported
  SchemaError("unknown field \"" + CapText(key, kMaxKeyInMessage) + "\" in " + where +
              " (m1nd cannot load a store with a field it does not know)");
  return true;
}

bool StoreWalker::CheckObject(ondemand::value& value, const Shape& shape) {
  ondemand::object object;
  simdjson::error_code error = value.get_object().get(object);
  if (error) return Syntax(error, shape.where);
  FieldCursor cursor(shape);
  for (auto&& field_result : object) {
    error = field_result.error();
    if (error) return Syntax(error, shape.where);
    ondemand::field& field = field_result.value_unsafe();
    const FieldShape* known = nullptr;
    if (!MatchKey(field, &cursor, shape, &known)) return false;
    if (known != nullptr && !CheckField(field.value(), *known)) return false;
  }
  return true;
}

// Checks the keys of a known field's value when it is one of m1nd's structs the walk
// looks into. A value of another type is left to the enclosing iteration's skip:
// types are not checked here, so a null optional struct, or a wrong type, passes unread.
bool StoreWalker::CheckField(ondemand::value& value, const FieldShape& field) {
  if (field.nested == nullptr) return true;  // skipped
  ondemand::json_type type;
  const simdjson::error_code error = value.type().get(type);
  if (error) return Syntax(error, field.nested->where);
  return type == ondemand::json_type::object ? CheckObject(value, *field.nested) : true;
}

template <std::size_t N>
bool StoreWalker::ReadState(ondemand::value& value, const char* where,
                            const std::string_view (&states)[N]) {
  bool is_string = false;
  std::string_view state;
  if (!ReadString(value, where, &is_string, &state)) return false;
  if (!is_string) {
    SchemaError(std::string(where) + " is not a string");
  } else if (!OneOf(states, state)) {
    SchemaError(std::string(where) + " \"" + CapText(state, kMaxKeyInMessage) +
                "\" is not a state m1nd knows");
  }
  return true;
}

// m1nd's skeleton version is a u32: 0 to 2^32 - 1; any other number, or another type,
// fails its load. A broken number is a syntax error, as for store_version.
bool StoreWalker::ReadSkeletonVersion(ondemand::value& value) {
  constexpr const char* kWhere = "\"skeleton.version\"";
  ondemand::json_type type;
  simdjson::error_code error = value.type().get(type);
  if (error) return Syntax(error, kWhere);
  if (type == ondemand::json_type::number) {
    bool fits = false;
    std::uint64_t version = 0;
    if (!ReadUnsigned(value, kWhere, &fits, &version)) return false;
    if (fits && version <= UINT32_MAX) return true;
  }
  SchemaError(std::string(kWhere) + " is not an unsigned 32-bit integer");
  return true;
}

inline bool StoreWalker::MatchKey(ondemand::field& field, FieldCursor* cursor, const Shape& shape,
                                  const FieldShape** known) {
  *known = cursor->Match(field.key().raw());
  return *known != nullptr || MatchDecodedKey(field, shape, known);
}

bool StoreWalker::MatchDecodedKey(ondemand::field& field, const Shape& shape,
                                  const FieldShape** known) {
  // Not one of the names as written: decode the key (serde matches escaped spellings).
  std::string_view key;
  if (!KeyOf(field, shape.where, &key)) return false;
  *known = FindField(shape, key);
  if (*known == nullptr) UnknownField(key, shape.where);
  return true;
}

bool StoreWalker::ReadBlock(ondemand::value& value, std::size_t index) {
  ondemand::json_type type;
  simdjson::error_code error = value.type().get(type);
  if (error) return Syntax(error, "\"blocks\"");
  if (type != ondemand::json_type::object) {
    SchemaError("blocks[" + std::to_string(index) + "] is not an object");
    return true;
  }
  ondemand::object object;
  error = value.get_object().get(object);
  if (error) return Syntax(error, "\"blocks\"");
  bool has_id = false;
  bool seen_id = false;
  std::string_view id;
  // The loops of the walk use each field or element in place, in the result the
  // iteration made: moving it out with get() copied it first, a copy that stalled the
  // hottest loop (about 7% of a read of large stores, docs/performance.md).
  FieldCursor cursor(kBlock);
  for (auto&& field_result : object) {
    error = field_result.error();
    if (error) return Syntax(error, "\"blocks\"");
    ondemand::field& field = field_result.value_unsafe();
    const FieldShape* known = nullptr;
    if (!MatchKey(field, &cursor, kBlock, &known)) return false;
    if (known == nullptr) continue;  // unknown: recorded, the value skipped
    if (known->role == FieldRole::kBlockId) {
      if (seen_id) {
        return Duplicate("block_id", ("blocks[" + std::to_string(index) + "]").c_str());
      }
      seen_id = true;
      if (!ReadString(field.value(), "\"block_id\"", &has_id, &id)) return false;
    } else if (known->role == FieldRole::kState) {
      if (!ReadState(field.value(), "a block's \"state\"", kBlockStates)) return false;
    }  // any other field of a block is skipped unread
  }
  if (has_id) {
    block_ids_->push_back(id);
  } else {
    SchemaError("blocks[" + std::to_string(index) + "] has no string \"block_id\"");
  }
  return true;
}

bool StoreWalker::ReadBlocks(ondemand::value& value) {
  block_ids_->clear();
  ondemand::json_type type;
  simdjson::error_code error = value.type().get(type);
  if (error) return Syntax(error, "\"blocks\"");
  if (type == ondemand::json_type::null) {
    // Not ReadNull: calling it here changed the code GCC makes for the loop over the
    // blocks below, 4 more instructions a block (callgrind, docs/performance.md).
    bool is_null = false;
    error = value.is_null().get(is_null);
    if (error || !is_null) return Syntax(error ? error : simdjson::N_ATOM_ERROR, "\"blocks\"");
    SchemaError("\"blocks\" is null (m1nd cannot load a store without blocks)");
    return true;
  }
  if (type != ondemand::json_type::array) {
    SchemaError("\"blocks\" is not an array");
    return true;
  }
  ondemand::array array;
  error = value.get_array().get(array);
  if (error) return Syntax(error, "\"blocks\"");
  std::size_t index = 0;
  for (auto&& element_result : array) {
    error = element_result.error();
    if (error) return Syntax(error, "\"blocks\"");
    if (!ReadBlock(element_result.value_unsafe(), index++)) return false;
  }
  return true;
}

// m1nd requires the policy object; the exporter needs nothing in it, so only its type
// is checked and the enclosing iteration skips the object unread.
bool StoreWalker::CheckUnmappedPolicy(ondemand::value& value) {
  ondemand::json_type type;
  const simdjson::error_code error = value.type().get(type);
  if (error) return Syntax(error, "\"unmapped_policy\"");
  if (type == ondemand::json_type::object) return CheckObject(value, kUnmappedPolicy);
  if (type == ondemand::json_type::null) {
    if (!ReadNull(value, "\"unmapped_policy\"")) return false;
    SchemaError("\"unmapped_policy\" is null (m1nd cannot load a store without it)");
    return true;
  }
  SchemaError("\"unmapped_policy\" is not an object");
  return true;
}

bool StoreWalker::ReadField(ondemand::field& field) {
  std::string_view key;
  if (!KeyOf(field, "the document", &key)) return false;
  if (key == "schema") return Once(&seen_.schema, "schema") && ReadSchema(field.value());
  if (key == "store_version") {
    return Once(&seen_.store_version, "store_version") && ReadStoreVersion(field.value());
  }
  if (key == "skeleton") return Once(&seen_.skeleton, "skeleton") && ReadSkeleton(field.value());
  if (key == "blocks") return Once(&seen_.blocks, "blocks") && ReadBlocks(field.value());
  if (key == "unmapped_policy") {
    return Once(&seen_.unmapped_policy, "unmapped_policy") && CheckUnmappedPolicy(field.value());
  }
  // The optional fields of the newest SystemBlockStore: skipped unread, but serde
  // reports one written twice as it does a required one.
  for (std::size_t i = 0; i < kOptionalStoreFieldCount; ++i) {
    if (key == kOptionalStoreFields[i])
      return Once(&seen_.optional[i], kOptionalStoreFields[i].data());
  }
  // m1nd's SystemBlockStore denies unknown fields: it cannot load this store. The walk
  // goes on (skipping the value) so that a torn file is still kParse.
  SchemaError("unknown field \"" + CapText(key, kMaxKeyInMessage) +
              "\" at the top level (m1nd cannot load a store with a field it does not know)");
  return true;
}

bool StoreWalker::Once(bool* seen, const char* key) {
  if (*seen) return Duplicate(key, "the document");
  *seen = true;
  return true;
}

bool StoreWalker::RootObject() {
  ondemand::object root;
  simdjson::error_code error = doc_->get_object().get(root);
  if (error) return Syntax(error, "the document");
  // One pass over the fields in file order, so the walk reaches the closing brace.
  for (auto&& field_result : root) {
    error = field_result.error();
    if (error) return Syntax(error, "the document");
    if (!ReadField(field_result.value_unsafe())) return false;
  }
  if (!seen_.schema) SchemaError("\"schema\" is missing");
  if (!seen_.store_version) {
    SchemaError("\"store_version\" is missing (m1nd cannot load a store without it)");
  }
  if (!seen_.skeleton) SchemaError("\"skeleton\" is missing (m1nd cannot load a store without it)");
  if (!seen_.blocks) SchemaError("\"blocks\" is missing (m1nd cannot load a store without it)");
  if (!seen_.unmapped_policy) {
    SchemaError("\"unmapped_policy\" is missing (m1nd cannot load a store without it)");
  }
  return true;
}

bool StoreWalker::RootOther(ondemand::json_type type) {
  // Consume it anyway: a torn or garbled file is kParse, not kSchema.
  SchemaError("the document is not an object");
  simdjson::error_code error = simdjson::SUCCESS;
  switch (type) {
    case ondemand::json_type::array: {
      ondemand::array array;
      error = doc_->get_array().get(array);
      if (error) break;
      for (auto&& element_result : array) {
        error = element_result.error();
        if (error) break;
      }
      break;
    }
    case ondemand::json_type::string: {
      std::string_view ignored;
      error = doc_->get_string().get(ignored);
      break;
    }
    case ondemand::json_type::number: {
      ondemand::number ignored;
      error = doc_->get_number().get(ignored);
      break;
    }
    case ondemand::json_type::boolean: {
      bool ignored;
      error = doc_->get_bool().get(ignored);
      if (error == simdjson::INCORRECT_TYPE) error = simdjson::T_ATOM_ERROR;
      break;
    }
    default: {
      bool is_null = false;
      error = doc_->is_null().get(is_null);
      if (!error && !is_null) error = simdjson::N_ATOM_ERROR;
      break;
    }
  }
  return error ? Syntax(error, "the document") : true;
}

StoreError StoreWalker::Walk(std::string* message) {
  ondemand::json_type type;
  simdjson::error_code error = doc_->type().get(type);
  bool ok;
  if (error) {
    ok = Syntax(error, "the document");
  } else if (type == ondemand::json_type::object) {
    ok = RootObject();
  } else {
    ok = RootOther(type);
  }
  // The root value must be the whole document (trailing whitespace aside).
  const char* location = nullptr;
  if (ok && doc_->current_location().get(location) == simdjson::SUCCESS) {
    ok = Syntax(simdjson::TRAILING_CONTENT, "the document");
  }
  if (!ok) {
    *message = std::move(syntax_message_);
    return syntax_error_ == simdjson::MEMALLOC ? StoreError::kIo : StoreError::kParse;
  }
  if (!schema_message_.empty()) {
    *message = std::move(schema_message_);
    return StoreError::kSchema;
  }
  return StoreError::kNone;
}

// Grows `parser` as the buffer grows (simdjson would allocate the exact size). When
// that fails, iterate() tries the exact size itself and reports what failed.
void GrowParser(std::size_t length, ondemand::parser* parser) {
  if (parser->capacity() >= length) return;
  const std::size_t grown = GrownCapacity(parser->capacity(), length);
  if (grown > parser->max_capacity()) return;
  const simdjson::error_code ignored = parser->allocate(grown, parser->max_depth());
  static_cast<void>(ignored);
}

// The one entry point to the JSON parser: parses `json` with the thread's parser and,
// on success, fills `contents` (and `block_ids` when not null) while the views into
// the parser's buffers are still valid. `json` must be followed by at least
// SIMDJSON_PADDING readable bytes.
StoreError ParseDocument(simdjson::padded_string_view json, StoreContents* contents,
                         std::string* message, std::vector<std::string>* block_ids) {
  *contents = StoreContents();
  message->clear();
  if (block_ids != nullptr) block_ids->clear();
  ThreadReader& reader = ThisThreadReader();
  GrowParser(json.length(), &reader.parser);
  ondemand::document doc;
  const simdjson::error_code error = reader.parser.iterate(json).get(doc);
  if (error) {
    *message = std::string("invalid JSON: ") + simdjson::error_message(error);
    return error == simdjson::MEMALLOC ? StoreError::kIo : StoreError::kParse;
  }
  StoreWalker walker(&doc, json.data(), &reader.views);
  const StoreError result = walker.Walk(message);
  if (result == StoreError::kNone) {
    contents->store_version = walker.store_version();
    contents->block_count = static_cast<std::int64_t>(reader.views.size());
    SkeletonDigestBuilder digest(walker.skeleton_id());
    for (std::string_view id : reader.views) digest.AddBlock(id);
    contents->digest = digest.Finish();
    if (block_ids != nullptr) block_ids->assign(reader.views.begin(), reader.views.end());
  }
  reader.views.clear();
  return result;
}

// ---------------------------------------------------------------------------------
// Files: read through untrusted_file, straight into a reusable padded buffer.

StoreError FromUntrustedFile(UntrustedFileError error) {
  switch (error) {
    case UntrustedFileError::kNone:
      return StoreError::kNone;
    case UntrustedFileError::kAbsent:
      return StoreError::kAbsent;
    case UntrustedFileError::kIo:
      return StoreError::kIo;
    case UntrustedFileError::kTooLarge:
      return StoreError::kTooLarge;
    case UntrustedFileError::kNotRegular:
      return StoreError::kNotRegular;
    case UntrustedFileError::kForeignLink:
      return StoreError::kForeignLink;
  }
  return StoreError::kIo;
}

// True when `path` leads nowhere: a symbolic link (or a chain of them) to nothing.
// untrusted_file calls that not_regular, which suits its other files; m1nd opens the store
// and gets NotFound, its "no skeleton yet", so to the store reader it is absent.
bool IsDanglingLink(const std::string& path) {
  struct stat target;
  return stat(path.c_str(), &target) != 0 && errno == ENOENT;
}

// Maps a brain-file result: the error, "<path>: <message>" and the stamp (from the
// last stat or fstat, left unset when there was none).
StoreError TakeFileResult(const std::string& path, const UntrustedFileResult& file,
                          FileStamp* stamp, std::string* message) {
  if (file.has_info) *stamp = StampOfStat(file.info);
  if (file.error == UntrustedFileError::kNotRegular && IsDanglingLink(path)) {
    *message = path + ": dangling symbolic link (no store yet, as m1nd reads it)";
    return StoreError::kAbsent;
  }
  if (file.error != UntrustedFileError::kNone) *message = path + ": " + file.message;
  return FromUntrustedFile(file.error);
}

}  // namespace

StoreError StatStore(const std::string& path, FileStamp* stamp, std::string* message) {
  std::string ignored;
  if (message == nullptr) message = &ignored;
  FileStamp local;
  if (stamp == nullptr) stamp = &local;
  try {
    message->clear();
    return TakeFileResult(path, StatUntrustedFile(path), stamp, message);
  } catch (const std::bad_alloc&) {
    return StoreError::kIo;
  }
}

StoreReadResult ReadStore(const std::string& path, const StoreReaderOptions& options) {
  StoreReadResult result;
  try {
    PaddedBuffer& buffer = ThisThreadReader().buffer;
    const UntrustedFileResult file =
        ReadUntrustedFile(path, options.max_bytes, &buffer, LinkRule::kOwnerOfFolder);
    result.error = TakeFileResult(path, file, &result.stamp, &result.message);
    if (result.error == StoreError::kNone) {
      const std::size_t size = file.size;
      buffer.Pad(size);
      result.error = ParseDocument(
          simdjson::padded_string_view(buffer.data(), size, size + simdjson::SIMDJSON_PADDING),
          &result.contents, &result.message, nullptr);
      if (result.error != StoreError::kNone) result.message = path + ": " + result.message;
    }
  } catch (const std::bad_alloc&) {
    result.error = StoreError::kIo;
    result.message = path + ": out of memory";
  }
  return result;
}

void ReleaseStoreReaderMemory() {
  ThreadReader& reader = ThisThreadReader();
  if (reader.buffer.capacity() > kKeptStoreBytes) reader.buffer.Release();
  if (reader.parser.capacity() > kKeptStoreBytes) reader.parser = ondemand::parser();
  if (reader.views.capacity() > kKeptBlockIdViews) {
    std::vector<std::string_view>().swap(reader.views);
  }
}

StoreError ParseStore(std::string_view json, StoreContents* contents, std::string* message,
                      std::vector<std::string>* block_ids) {
  std::string ignored;
  if (message == nullptr) message = &ignored;
  StoreContents local;
  if (contents == nullptr) contents = &local;
  try {
    const simdjson::padded_string padded(json.data(), json.size());
    if (padded.data() == nullptr && !json.empty()) {
      *message = "out of memory";
      return StoreError::kIo;
    }
    return ParseDocument(padded, contents, message, block_ids);
  } catch (const std::bad_alloc&) {
    *message = "out of memory";
    return StoreError::kIo;
  }
}

}  // namespace scx
