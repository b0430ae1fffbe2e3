// Test helpers for files on disk.
#include "tests/test_support.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace scx {
namespace testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
  const char* base = getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/scx-test-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = buffer.data();
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

std::string TempDir::Join(const std::string& relative) const { return path_ + "/" + relative; }

void MakeDirs(const std::string& path) { fs::create_directories(path); }

void WriteFile(const std::string& path, const std::string& contents) {
  fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  if (!out) throw std::runtime_error("cannot write " + path);
}

void ReplaceFileAtomically(const std::string& path, const std::string& contents) {
  WriteFile(path + ".tmp", contents);
  fs::rename(path + ".tmp", path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string StoreJson(const std::string& skeleton_id, const std::vector<std::string>& block_ids,
                      int store_version) {
  std::ostringstream out;
  out << "{\n"
      << "  \"schema\": \"m1nd-system-block-store-v0\",\n"
      << "  \"store_version\": " << store_version << ",\n"
      << "  \"skeleton\": {\n"
      << "    \"skeleton_id\": \"" << skeleton_id << "\",\n"
      << "    \"version\": 1,\n"
      << "    \"state\": \"candidate\",\n"
      << "    \"ratification\": {\"method\": \"\", \"ratifier\": \"\", \"ratified_at\": \"\", "
         "\"commit\": \"\"}\n"
      << "  },\n"
      << "  \"blocks\": [";
  for (size_t i = 0; i < block_ids.size(); ++i) {
    out << (i ? ",\n" : "\n") << "    {\n"
        << "      \"block_id\": \"" << block_ids[i] << "\",\n"
        << "      \"name\": \"Block " << i << "\",\n"
        << "      \"purpose\": \"test block\",\n"
        << "      \"kind\": \"scanned\",\n"
        << "      \"state\": \"candidate\",\n"
        << "      \"membership\": [{\"path\": \"src/lib" << i << ".rs\", \"role\": \"primary\"}],\n"
        << "      \"sockets\": {\"inputs\": [], \"outputs\": [], \"external\": []}\n"
        << "    }";
  }
  out << (block_ids.empty() ? "]" : "\n  ]") << ",\n"
      << "  \"unmapped_policy\": {\"visible\": true, \"default_action\": "
         "\"leave_unmapped_until_ratified\"}\n"
      << "}\n";
  return out.str();
}

std::string ManifestJson(const std::string& project_root) {
  return "{\"schema\": \"m1nd-project-brain-v0\", \"project_root\": \"" + project_root +
         "\", \"brain_kind\": \"project\", \"created_ms\": 1767225600000}\n";
}

std::string InstanceJson(const std::string& instance_id, const std::string& workspace_root,
                         const std::string& runtime_root, const std::string& brain_kind,
                         bool stale) {
  std::ostringstream out;
  out << "{\"instance_id\": \"" << instance_id << "\", \"workspace_root\": \"" << workspace_root
      << "\", \"runtime_root\": \"" << runtime_root << "\", \"graph_source\": \"" << runtime_root
      << "/graph_snapshot.json\", "
      << "\"plasticity_state\": \"" << runtime_root << "/plasticity_state.json\", "
      << "\"pid\": 4242, \"bind\": \"127.0.0.1\", \"port\": 1337, "
      << "\"started_at_ms\": 1767225600000, \"last_heartbeat_ms\": 1767225600000, "
      << "\"mode\": \"read_write\", \"status\": \"running\", \"owner_live\": "
      << (stale ? "false" : "true") << ", \"stale\": " << (stale ? "true" : "false")
      << ", \"conflicts\": [], \"brain_kind\": " << brain_kind << "}\n";
  return out.str();
}

std::size_t OpenDescriptorCount() {
  std::size_t count = 0;
  for (const auto& entry : fs::directory_iterator("/proc/self/fd")) {
    (void)entry;
    ++count;
  }
  return count;
}

}  // namespace testing
}  // namespace scx
