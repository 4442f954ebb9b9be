// Reads one YAML mapping into typed fields, recording each key's line and collecting errors
// ("file:line: path: message") instead of throwing, so a bad file reports every problem at once.
// Keys that no Read() asked for are reported as unknown by Finish(). Internal to robot_edge_config.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"

namespace robot_edge::config::detail {

// Shared by all readers of one file.
struct ParseContext {
  std::string source;
  SourceLines* lines;
  std::vector<std::string> errors;

  void Error(const YAML::Node& node, const std::string& path, const std::string& message);
  void Record(const std::string& path, const YAML::Node& node);
};

// Bounds on any YAML document robot-edge reads (the config and its calibration file), so that no
// input crashes or stalls the reader: past one, the file gets a "file:line" error.
inline constexpr std::size_t kMaxDocumentBytes = 256 * 1024;  // 20x the largest shipped config
inline constexpr int kMaxNestingDepth = 32;                   // levels below the top mapping
inline constexpr std::size_t kMaxNodes = 100'000;  // counted as read: an alias once per use

// Parses `text` as one YAML document. Throws ConfigError ("source:line: message") when it is
// larger than kMaxDocumentBytes, is not YAML, or nests deeper than yaml-cpp's parser allows.
YAML::Node LoadDocument(std::string_view text, const std::string& source);

// Checks every key of the document before any reader runs; the readers rely on it. Each key must
// be a plain scalar given once in its mapping. The walk stops, with an error, at an alias that
// contains itself, below kMaxNestingDepth, or past kMaxNodes (anchors reused so often that the
// document expands beyond any configuration, "billion laughs"): after a clean CheckKeys, every
// reader's work is bounded by kMaxNodes.
void CheckKeys(const YAML::Node& root, ParseContext* ctx);

class MapReader {
 public:
  // `node` must be a mapping (an error is recorded otherwise); `path` is its key path ("" = root).
  MapReader(const YAML::Node& node, std::string path, ParseContext* ctx);

  // Reads an optional key into *out; an absent key keeps the default.
  void Read(const char* key, double* out);
  void Read(const char* key, int* out);
  void Read(const char* key, std::uint32_t* out);
  void Read(const char* key, bool* out);
  void Read(const char* key, std::string* out);
  void Read(const char* key, std::vector<std::string>* out);

  // Like Read(), but an absent key is an error.
  template <typename T>
  void Require(const char* key, T* out) {
    if (!Has(key)) {
      ctx_->Error(node_, path_, std::string("missing required key '") + key + "'");
      return;
    }
    Read(key, out);
  }

  bool Has(const char* key) const;
  // Returns the child node and marks the key as known (an undefined node when absent).
  YAML::Node Child(const char* key);
  std::string PathOf(const char* key) const;

  // Reports keys that were never read as unknown.
  void Finish();

 private:
  template <typename T>
  void ReadScalar(const char* key, T* out, const char* type_name);

  YAML::Node node_;
  std::string path_;
  ParseContext* ctx_;
  std::set<std::string> known_;
  bool valid_ = true;
};

}  // namespace robot_edge::config::detail
