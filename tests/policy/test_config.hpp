// Configurations for the policy tests: the default robot (config/robot-edge.yaml) with a policy
// section appended, and a scratch directory for the models the tests write.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "config/library_options.hpp"

namespace robot_edge::policy::test {

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The default config plus `policy_section` ("policy:\n  model: …"), parsed and validated
// (a problem fails the test and throws).
inline config::Config WithPolicy(const std::string& policy_section) {
  const std::string text = ReadText(ROBOT_EDGE_DEFAULT_CONFIG) + "\n" + policy_section;
  config::Config c = config::ParseConfig(text, "robot-edge.yaml");
  const auto problems = config::Validate(c);
  for (const auto& p : problems) ADD_FAILURE() << p;
  if (!problems.empty()) throw config::ConfigError(problems);
  return c;
}

// The problems Validate() finds in the default config plus `policy_section`.
inline std::vector<std::string> PolicyErrors(const std::string& policy_section) {
  const std::string text = ReadText(ROBOT_EDGE_DEFAULT_CONFIG) + "\n" + policy_section;
  return config::Validate(config::ParseConfig(text, "robot-edge.yaml"));
}

// A fresh directory under the test's temporary directory.
inline std::string ScratchDir(const std::string& name) {
  const auto dir = std::filesystem::path(testing::TempDir()) / ("robot-edge-policy-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace robot_edge::policy::test
