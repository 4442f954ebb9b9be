// Start-up: the model of config.policy, checked against the configuration. A model that cannot
// drive this configuration is a configuration error, reported like any other before anything
// opens (robot-edged at start-up and with --check-config):
//   robot-edge.yaml:131: policy.model: policies/walk.onnx: node 'n3' uses operator 'Softmax', …
//   robot-edge.yaml:131: policy.model: the network takes 47 inputs; the observation has 45 (…)
#pragma once

#include <memory>

#include "policy/policy_runner.hpp"
#include "policy/runtime.hpp"
#include "policy/setup.hpp"

namespace robot_edge::policy {

// Loads setup.policy.model_path and checks that its input is as long as the observation, its
// output as the policy joints, and its metadata (robot_edge.*) agrees with the setup. Throws
// ModelRefused.
std::unique_ptr<InferenceRuntime> LoadPolicyModel(const PolicySetup& setup);

// LoadPolicyModel() and the runner around it (its thread not started). Throws ModelRefused.
std::unique_ptr<PolicyRunner> MakePolicyRunner(const PolicySetup& setup);

}  // namespace robot_edge::policy
