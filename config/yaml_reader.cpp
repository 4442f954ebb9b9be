#include "config/yaml_reader.hpp"

#include <yaml-cpp/depthguard.h>

#include <algorithm>
#include <limits>
#include <map>

namespace robot_edge::config::detail {
namespace {

// "source:line" at a parser mark (0-based line; negative = unknown).
std::string At(const std::string& source, const YAML::Mark& mark) {
  return mark.line < 0 ? source : source + ":" + std::to_string(mark.line + 1);
}

std::string Indexed(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// The walk of CheckKeys(): one error per bad key; the first bound it meets stops it.
class KeyWalk {
 public:
  explicit KeyWalk(ParseContext* ctx) : ctx_(ctx) {}

  // False once a bound stopped the walk. `where` gives the error's line (the key, if any).
  bool Walk(const YAML::Node& node, const YAML::Node& where, const std::string& path) {
    if (++nodes_ > kMaxNodes) {
      return Stop(where, path,
                  "the document expands to more than " + std::to_string(kMaxNodes) +
                      " values (an anchor reused too often?)");
    }
    if (!node.IsMap() && !node.IsSequence()) return true;
    const bool cycle = std::any_of(ancestors_.begin(), ancestors_.end(),
                                   [&](const YAML::Node& a) { return a.is(node); });
    if (cycle) return Stop(where, path, "an alias refers to a mapping or list that contains it");
    if (ancestors_.size() > static_cast<std::size_t>(kMaxNestingDepth)) {
      return Stop(where, path,
                  "nested deeper than " + std::to_string(kMaxNestingDepth) + " levels");
    }
    ancestors_.push_back(node);
    const bool ok = node.IsMap() ? WalkMap(node, path) : WalkSequence(node, path);
    ancestors_.pop_back();
    return ok;
  }

 private:
  bool WalkSequence(const YAML::Node& node, const std::string& path) {
    std::size_t i = 0;
    for (const auto& entry : node) {
      if (!Walk(entry, entry, Indexed(path, i++))) return false;
    }
    return true;
  }

  // yaml-cpp keeps every entry of a mapping but a lookup finds only the first: a key given twice
  // would silently lose the second value. Reported with both lines.
  bool WalkMap(const YAML::Node& node, const std::string& path) {
    std::map<std::string, int> first_line;
    for (const auto& item : node) {
      if (!item.first.IsScalar()) {
        ctx_->Error(item.first, path.empty() ? "(top level)" : path,
                    "a key must be a plain name, not a list, a mapping or empty");
        continue;
      }
      const std::string key = item.first.Scalar();
      const int line = item.first.Mark().line + 1;
      const std::string child = path.empty() ? key : path + "." + key;
      const auto [it, fresh] = first_line.emplace(key, line);
      if (!fresh) {
        ctx_->Error(item.first, child,
                    "given twice (lines " + std::to_string(it->second) + " and " +
                        std::to_string(line) + "): remove one");
      }
      if (!Walk(item.second, item.first, child)) return false;
    }
    return true;
  }

  bool Stop(const YAML::Node& where, const std::string& path, const std::string& message) {
    ctx_->Error(where, path.empty() ? "(top level)" : path, message);
    return false;
  }

  ParseContext* ctx_;
  std::vector<YAML::Node> ancestors_;  // the mappings and lists above the node walked
  std::size_t nodes_ = 0;              // values walked so far, an alias once per use
};

}  // namespace

YAML::Node LoadDocument(std::string_view text, const std::string& source) {
  if (text.size() > kMaxDocumentBytes) {
    const auto cut = text.begin() + static_cast<std::ptrdiff_t>(kMaxDocumentBytes);
    const auto line = 1 + std::count(text.begin(), cut, '\n');
    throw ConfigError({source + ":" + std::to_string(line) + ": the file passes " +
                       std::to_string(kMaxDocumentBytes / 1024) +
                       " KiB here; a configuration is a few KiB"});
  }
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::DeepRecursion& e) {
    throw ConfigError({At(source, e.mark) + ": nested too deeply for the YAML parser"});
  } catch (const YAML::ParserException& e) {
    throw ConfigError({At(source, e.mark) + ": " + e.msg});
  }
}

void CheckKeys(const YAML::Node& root, ParseContext* ctx) { KeyWalk(ctx).Walk(root, root, ""); }

void ParseContext::Error(const YAML::Node& node, const std::string& path,
                         const std::string& message) {
  std::string where = source;
  if (node.IsDefined() && node.Mark().line >= 0) {
    where += ':';  // (not ":" + ...: GCC 12 -O3 warns wrongly about that form, PR 105329)
    where += std::to_string(node.Mark().line + 1);
  }
  errors.push_back(where + ": " + (path.empty() ? "" : path + ": ") + message);
}

void ParseContext::Record(const std::string& path, const YAML::Node& node) {
  if (node.IsDefined() && node.Mark().line >= 0) (*lines)[path] = node.Mark().line + 1;
}

MapReader::MapReader(const YAML::Node& node, std::string path, ParseContext* ctx)
    : node_(node), path_(std::move(path)), ctx_(ctx) {
  if (!node_.IsDefined() || node_.IsNull()) {
    valid_ = false;  // an absent section keeps every default
    return;
  }
  if (!node_.IsMap()) {
    ctx_->Error(node_, path_, "expected a mapping of keys to values");
    valid_ = false;
  }
}

bool MapReader::Has(const char* key) const { return valid_ && node_[key].IsDefined(); }

std::string MapReader::PathOf(const char* key) const {
  return path_.empty() ? std::string(key) : path_ + "." + key;
}

YAML::Node MapReader::Child(const char* key) {
  known_.insert(key);
  if (!valid_) return YAML::Node(YAML::NodeType::Undefined);
  const YAML::Node& node = node_;  // const lookup: never inserts the key
  YAML::Node child = node[key];
  if (child.IsDefined()) ctx_->Record(PathOf(key), child);
  return child;
}

template <typename T>
void MapReader::ReadScalar(const char* key, T* out, const char* type_name) {
  const YAML::Node child = Child(key);
  if (!child.IsDefined()) return;
  if (!child.IsScalar()) {
    ctx_->Error(child, PathOf(key), std::string("expected ") + type_name);
    return;
  }
  try {
    *out = child.as<T>();
  } catch (const YAML::Exception&) {
    ctx_->Error(child, PathOf(key), "'" + child.Scalar() + "' is not " + type_name);
  }
}

void MapReader::Read(const char* key, double* out) { ReadScalar(key, out, "a number"); }
void MapReader::Read(const char* key, bool* out) { ReadScalar(key, out, "true or false"); }
void MapReader::Read(const char* key, std::string* out) { ReadScalar(key, out, "a string"); }

void MapReader::Read(const char* key, int* out) {
  long long value = *out;
  ReadScalar(key, &value, "an integer");
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
    ctx_->Error(Child(key), PathOf(key), "integer out of range");
    return;
  }
  *out = static_cast<int>(value);
}

void MapReader::Read(const char* key, std::uint32_t* out) {
  long long value = *out;
  ReadScalar(key, &value, "an integer");
  if (value < 0 || value > std::numeric_limits<std::uint32_t>::max()) {
    ctx_->Error(Child(key), PathOf(key), std::to_string(value) + " is not a non-negative integer");
    return;
  }
  *out = static_cast<std::uint32_t>(value);
}

void MapReader::Read(const char* key, std::vector<std::string>* out) {
  const YAML::Node child = Child(key);
  if (!child.IsDefined()) return;
  if (!child.IsSequence()) {
    ctx_->Error(child, PathOf(key), "expected a list of strings");
    return;
  }
  out->clear();
  for (std::size_t i = 0; i < child.size(); ++i) {
    if (!child[i].IsScalar()) {
      ctx_->Error(child[i], PathOf(key) + "[" + std::to_string(i) + "]", "expected a string");
      continue;
    }
    out->push_back(child[i].Scalar());
  }
}

void MapReader::Finish() {
  if (!valid_) return;
  for (const auto& item : node_) {
    const std::string key = item.first.as<std::string>();
    if (!known_.contains(key)) ctx_->Error(item.first, PathOf(key.c_str()), "unknown key");
  }
}

}  // namespace robot_edge::config::detail
