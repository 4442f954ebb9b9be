#include "policy/load.hpp"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>
#include <variant>

#include "policy/observation.hpp"

namespace robot_edge::policy {
namespace {

// The JSON that `robot-edge-policy import` writes into metadata_props: numbers, strings, arrays,
// objects. Only what the check reads; anything malformed throws std::runtime_error.
struct Json {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = Kind::kNull;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  std::vector<std::string> keys;  // an object's, with its values in `items`

  const Json* Field(std::string_view name) const {
    for (std::size_t i = 0; i < keys.size() && i < items.size(); ++i) {
      if (keys[i] == name) return &items[i];
    }
    return nullptr;
  }
};

class JsonParser {
 public:
  explicit JsonParser(std::string_view s) : s_(s) {}

  Json Parse() {
    Json v = Value();
    Space();
    if (i_ != s_.size()) Fail();
    return v;
  }

 private:
  [[noreturn]] void Fail() const {
    throw std::runtime_error("not valid JSON at character " + std::to_string(i_));
  }
  void Space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r'))
      ++i_;
  }
  bool Eat(char c) {
    Space();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  std::string String() {
    if (!Eat('"')) Fail();
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (c == '\\') {
        if (i_ >= s_.size()) Fail();
        c = s_[i_++];
        if (c == 'u') {  // names are ASCII; a \u escape is kept as '?'
          i_ += 4;
          c = '?';
        } else if (c == 'n') {
          c = '\n';
        } else if (c == 't') {
          c = '\t';
        }
      }
      out += c;
    }
    if (i_ >= s_.size()) Fail();
    ++i_;
    return out;
  }
  Json Value() {
    Space();
    if (i_ >= s_.size()) Fail();
    Json v;
    const char c = s_[i_];
    if (c == '"') {
      v.kind = Json::Kind::kString;
      v.text = String();
    } else if (c == '[') {
      ++i_;
      v.kind = Json::Kind::kArray;
      if (!Eat(']')) {
        do v.items.push_back(Value());
        while (Eat(','));
        if (!Eat(']')) Fail();
      }
    } else if (c == '{') {
      ++i_;
      v.kind = Json::Kind::kObject;
      if (!Eat('}')) {
        do {
          Space();
          std::string key = String();
          if (!Eat(':')) Fail();
          v.keys.push_back(std::move(key));
          v.items.push_back(Value());
        } while (Eat(','));
        if (!Eat('}')) Fail();
      }
    } else if (s_.substr(i_, 4) == "true" || s_.substr(i_, 5) == "false") {
      v.kind = Json::Kind::kBool;
      v.number = c == 't' ? 1 : 0;
      i_ += c == 't' ? 4 : 5;
    } else if (s_.substr(i_, 4) == "null") {
      i_ += 4;
    } else {
      const std::string rest(s_.substr(i_, 64));
      char* end = nullptr;
      v.number = std::strtod(rest.c_str(), &end);
      if (end == rest.c_str()) Fail();
      v.kind = Json::Kind::kNumber;
      i_ += static_cast<std::size_t>(end - rest.c_str());
    }
    return v;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

bool Same(double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(a)); }

std::string Number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// A number or an array of numbers, as numbers; throws when it is neither.
std::vector<double> Numbers(const Json& j) {
  if (j.kind == Json::Kind::kNumber) return {j.number};
  if (j.kind != Json::Kind::kArray) throw std::runtime_error("not a number or a list of numbers");
  std::vector<double> out;
  for (const Json& item : j.items) {
    if (item.kind != Json::Kind::kNumber) throw std::runtime_error("not a list of numbers");
    out.push_back(item.number);
  }
  return out;
}

// One value per joint: a single value stands for every joint.
std::vector<double> PerJoint(std::vector<double> v, std::size_t n) {
  if (v.size() == 1 && n != 1) v.assign(n, v[0]);
  return v;
}

// A term's clip as the metadata gives it ([low, high] or [[low, high], …]): lows, then highs.
using ClipBounds = std::pair<std::vector<double>, std::vector<double>>;
ClipBounds ClipOf(const Json& j) {
  if (j.kind != Json::Kind::kArray) throw std::runtime_error("clip is not a list");
  std::vector<double> low, high;
  const bool pairs = !j.items.empty() && j.items[0].kind == Json::Kind::kArray;
  auto add = [&](const Json& pair) {
    const std::vector<double> v = Numbers(pair);
    if (v.size() != 2) throw std::runtime_error("clip is not [low, high]");
    low.push_back(v[0]);
    high.push_back(v[1]);
  };
  if (pairs) {
    for (const Json& item : j.items) add(item);
  } else {
    add(j);
  }
  return {low, high};
}

// The comparison of one metadata entry with the config; "" when they agree.
std::string CompareNumbers(const std::vector<double>& model, const std::vector<double>& config,
                           const std::vector<std::string>& names) {
  if (model.size() != config.size()) {
    return std::to_string(model.size()) + " values in the model, " + std::to_string(config.size()) +
           " here";
  }
  for (std::size_t i = 0; i < model.size(); ++i) {
    if (!Same(model[i], config[i])) {
      const std::string who = i < names.size() ? names[i] : "value " + std::to_string(i);
      return who + ": " + Number(model[i]) + " in the model, " + Number(config[i]) + " here";
    }
  }
  return "";
}

// A term's clip in the metadata against the config's ("" when they agree); `values`: the term's.
std::string CompareClip(const Json* clip, const ObservationTermConfig& c, std::size_t values) {
  if (clip == nullptr || c.clip_low.empty()) {
    if (clip == nullptr && c.clip_low.empty()) return "";
    return clip ? "one in the model, none here" : "none in the model, one here";
  }
  const auto [low, high] = ClipOf(*clip);
  if (auto d = CompareNumbers(PerJoint(low, values), PerJoint(c.clip_low, values), {}); !d.empty())
    return "low " + d;
  if (auto d = CompareNumbers(PerJoint(high, values), PerJoint(c.clip_high, values), {});
      !d.empty())
    return "high " + d;
  return "";
}

// ONNX metadata_props written by `robot-edge-policy import` (robot_edge.*), compared with the
// policy section as robot-edged will run it (defaults resolved). Each disagreement is one problem
// naming the config field and the metadata key.
std::vector<std::string> CheckMetadata(const PolicySetup& setup) {
  std::ifstream in(setup.policy.model_path, std::ios::binary);
  onnx::ModelProto model;
  if (!in || !model.ParseFromIstream(&in)) return {};  // LoadOnnx has reported it already
  const auto& p = setup.policy;
  const std::size_t n = p.joints.size();
  std::vector<std::string> problems;
  auto problem = [&](const std::string& field, const std::string& key, const std::string& what) {
    problems.push_back(setup.where(field) + ": the model's metadata " + key +
                       " does not match: " + what);
  };
  std::vector<double> stand, kp, kd;
  for (std::size_t i = 0; i < n; ++i) {
    const JointDefaults& joint = setup.defaults[p.joints[i]];
    stand.push_back(joint.stand_rad);
    kp.push_back(joint.kp);
    kd.push_back(joint.kd);
  }
  for (const auto& entry : model.metadata_props()) {
    const std::string& key = entry.key();
    if (key.rfind("robot_edge.", 0) != 0) continue;
    Json j;
    try {
      j = JsonParser(entry.value()).Parse();
    } catch (const std::exception& e) {
      problems.push_back(setup.where("policy.model") + ": the model's metadata " + key + ": " +
                         e.what());
      continue;
    }
    try {
      if ((key == "robot_edge.joint_names" || key == "robot_edge.observation") &&
          j.kind != Json::Kind::kArray)
        throw std::runtime_error("not a list");
      if (key == "robot_edge.joint_names") {
        std::vector<std::string> names;
        for (const Json& item : j.items) names.push_back(item.text);
        if (names.size() != n) {
          problem("policy.joints", key,
                  std::to_string(names.size()) + " joints in the model, " + std::to_string(n) +
                      " here");
        } else {
          for (std::size_t i = 0; i < n; ++i) {
            if (names[i] != p.joint_names[i]) {
              problem("policy.joints", key,
                      "joint " + std::to_string(i) + " is " + names[i] + " in the model, " +
                          p.joint_names[i] + " here");
              break;
            }
          }
        }
      } else if (key == "robot_edge.default_pose") {
        const auto here = p.default_pose_rad.empty() ? stand : PerJoint(p.default_pose_rad, n);
        if (auto d = CompareNumbers(PerJoint(Numbers(j), n), here, p.joint_names); !d.empty())
          problem("policy.default_pose", key, d);
      } else if (key == "robot_edge.kp" || key == "robot_edge.kd") {
        const bool is_kp = key == "robot_edge.kp";
        const auto& given = is_kp ? p.kp : p.kd;
        const auto here = given.empty() ? (is_kp ? kp : kd) : PerJoint(given, n);
        if (auto d = CompareNumbers(PerJoint(Numbers(j), n), here, p.joint_names); !d.empty())
          problem(is_kp ? "policy.kp" : "policy.kd", key, d);
      } else if (key == "robot_edge.action_scale") {
        if (auto d =
                CompareNumbers(PerJoint(Numbers(j), n), PerJoint(p.action_scale, n), p.joint_names);
            !d.empty())
          problem("policy.action_scale", key, d);
      } else if (key == "robot_edge.action_offset") {
        const auto here =
            p.action_offset.empty()
                ? (p.default_pose_rad.empty() ? stand : PerJoint(p.default_pose_rad, n))
                : PerJoint(p.action_offset, n);
        if (auto d = CompareNumbers(PerJoint(Numbers(j), n), here, p.joint_names); !d.empty())
          problem("policy.action_offset", key, d);
      } else if (key == "robot_edge.rate_hz") {
        if (!Same(Numbers(j).at(0), p.rate_hz))
          problem("policy.rate_hz", key,
                  Number(Numbers(j).at(0)) + " Hz in the model, " + Number(p.rate_hz) + " here");
      } else if (key == "robot_edge.observation") {
        if (j.items.size() != p.observation.size()) {
          problem("policy.observation", key,
                  std::to_string(j.items.size()) + " terms in the model, " +
                      std::to_string(p.observation.size()) + " here");
          continue;
        }
        for (std::size_t t = 0; t < j.items.size(); ++t) {
          const Json& m = j.items[t];
          const auto& c = p.observation[t];
          const std::string field = "policy.observation[" + std::to_string(t) + "]";
          const Json* term = m.Field("term");
          const std::string name = term ? term->text : "?";
          if (name != ToString(c.term)) {
            problem(field, key,
                    "term " + std::to_string(t) + " is " + name + " in the model, " +
                        ToString(c.term) + " here");
            break;
          }
          const Json* scale = m.Field("scale");
          std::vector<double> ms = scale ? Numbers(*scale) : std::vector<double>{1.0};
          std::vector<double> cs = c.scale;
          if (ms.size() == 1 && cs.size() > 1) ms.assign(cs.size(), ms[0]);
          if (cs.size() == 1 && ms.size() > 1) cs.assign(ms.size(), cs[0]);
          if (auto d = CompareNumbers(ms, cs, {}); !d.empty())
            problem(field + ".scale", key, name + " scale: " + d);
          if (auto d = CompareClip(m.Field("clip"), c, TermSize(c, p)); !d.empty())
            problem(field + ".clip", key, name + " clip: " + d);
          if (const Json* history = m.Field("history"); history) {
            const double h = Numbers(*history).at(0);
            if (!Same(h == 0 ? p.history : h, TermHistory(c, p)))
              problem(field + ".history", key,
                      name + " history: " + Number(h) + " in the model, " +
                          std::to_string(TermHistory(c, p)) + " here");
          }
          if (const Json* period = m.Field("period_s"); period &&
                                                        c.term == ObservationTerm::kPhase &&
                                                        !Same(Numbers(*period).at(0), c.period_s))
            problem(field + ".period_s", key,
                    "phase period_s: " + Number(Numbers(*period).at(0)) + " in the model, " +
                        Number(c.period_s) + " here");
        }
      }
    } catch (const std::exception& e) {
      problems.push_back(setup.where("policy.model") + ": the model's metadata " + key + ": " +
                         e.what());
    }
  }
  return problems;
}

}  // namespace

std::unique_ptr<InferenceRuntime> LoadPolicyModel(const PolicySetup& setup) {
  const std::string where = setup.where("policy.model") + ": ";
  std::unique_ptr<InferenceRuntime> runtime;
  try {
    runtime = LoadOnnx(setup.policy.model_path, setup.policy.recurrent_state);
  } catch (const ModelError& e) {
    throw ModelRefused({where + e.what()});
  }
  std::vector<std::string> problems;
  const Observation observation(setup);
  if (runtime->input_size() != observation.size()) {
    problems.push_back(where + "the network takes " + std::to_string(runtime->input_size()) +
                       " inputs; the observation has " + observation.Describe());
  }
  if (runtime->output_size() != setup.policy.joints.size()) {
    problems.push_back(where + "the network gives " + std::to_string(runtime->output_size()) +
                       " outputs; policy.joints has " + std::to_string(setup.policy.joints.size()));
  }
  if (problems.empty()) problems = CheckMetadata(setup);
  if (!problems.empty()) throw ModelRefused(problems);
  return runtime;
}

std::unique_ptr<PolicyRunner> MakePolicyRunner(const PolicySetup& setup) {
  return std::make_unique<PolicyRunner>(setup, LoadPolicyModel(setup));
}

}  // namespace robot_edge::policy
