#include "client/joint_targets.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace robot_edge::client {

namespace {

bool SameIgnoringCase(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string JoinNames(std::span<const std::string> names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// A finite float from the whole of `text`, or throws naming `argument`.
float ParseRadians(const std::string& text, const std::string& argument) {
  float value = 0.0f;
  const char* begin = text.data() + (text.size() > 1 && text[0] == '+' ? 1 : 0);
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw std::invalid_argument("'" + argument + "': '" + text +
                                "' is not a number of radians (e.g. L_Knee=0.6)");
  }
  if (!std::isfinite(value)) {
    throw std::invalid_argument("'" + argument + "': the position must be a finite number");
  }
  return value;
}

}  // namespace

std::size_t FindJoint(std::span<const std::string> joint_names, const std::string& name) {
  for (std::size_t i = 0; i < joint_names.size(); ++i) {
    if (SameIgnoringCase(joint_names[i], name)) return i;
  }
  return joint_names.size();
}

std::vector<JointTarget> ParseJointTargets(std::span<const std::string> arguments,
                                           std::span<const std::string> joint_names) {
  std::vector<JointTarget> targets;
  for (const std::string& argument : arguments) {
    const std::size_t equals = argument.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw std::invalid_argument("'" + argument + "': expected JOINT=RAD, e.g. L_Knee=0.6");
    }
    const std::string name = argument.substr(0, equals);
    const std::size_t joint = FindJoint(joint_names, name);
    if (joint == joint_names.size()) {
      throw std::invalid_argument("'" + argument + "': unknown joint '" + name +
                                  "'; the robot's joints are: " + JoinNames(joint_names));
    }
    const float position = ParseRadians(argument.substr(equals + 1), argument);
    for (const JointTarget& earlier : targets) {
      if (earlier.joint == joint) {
        throw std::invalid_argument("'" + argument + "': joint " + joint_names[joint] +
                                    " is given twice");
      }
    }
    targets.push_back({joint, position});
  }
  return targets;
}

std::vector<float> ApplyTargets(std::span<const float> pose, std::span<const JointTarget> targets) {
  std::vector<float> out(pose.begin(), pose.end());
  for (const JointTarget& target : targets) out.at(target.joint) = target.position_rad;
  return out;
}

}  // namespace robot_edge::client
