#include "config/yaml_reader.hpp"

#include <limits>

namespace robot_edge::config::detail {

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
