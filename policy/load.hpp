// Start-up: the model of config.policy, checked against the configuration. A model that cannot
// drive this configuration is a configuration error, reported like any other before anything
// opens (robot-edged at start-up and with --check-config):
//   robot-edge.yaml:131: policy.model: policies/walk.onnx: node 'n3' uses operator 'Softmax', …
//   robot-edge.yaml:131: policy.model: the network takes 47 inputs; the observation has 45 (…)
#pragma once

#include <memory>

#include "config/config.hpp"
#include "policy/policy_runner.hpp"
#include "policy/runtime.hpp"

namespace robot_edge::policy {

// Loads config.policy.model_path (config.policy.enabled must be true) and checks that its input
// is as long as the observation and its output as the policy joints. Throws config::ConfigError.
std::unique_ptr<InferenceRuntime> LoadPolicyModel(const config::Config& config);

// LoadPolicyModel() and the runner around it (its thread not started). Throws
// config::ConfigError.
std::unique_ptr<PolicyRunner> MakePolicyRunner(const config::Config& config);

}  // namespace robot_edge::policy
