#include "policy/load.hpp"

#include "policy/observation.hpp"

namespace robot_edge::policy {

std::unique_ptr<InferenceRuntime> LoadPolicyModel(const config::Config& config) {
  const std::string where = config.Where("policy.model") + ": ";
  std::unique_ptr<InferenceRuntime> runtime;
  try {
    runtime = LoadOnnx(config.policy.model_path, config.policy.recurrent_state);
  } catch (const ModelError& e) {
    throw config::ConfigError({where + e.what()});
  }
  std::vector<std::string> problems;
  const Observation observation(config);
  if (runtime->input_size() != observation.size()) {
    problems.push_back(where + "the network takes " + std::to_string(runtime->input_size()) +
                       " inputs; the observation has " + observation.Describe());
  }
  if (runtime->output_size() != config.policy.joints.size()) {
    problems.push_back(where + "the network gives " + std::to_string(runtime->output_size()) +
                       " outputs; policy.joints has " +
                       std::to_string(config.policy.joints.size()));
  }
  if (!problems.empty()) throw config::ConfigError(problems);
  return runtime;
}

std::unique_ptr<PolicyRunner> MakePolicyRunner(const config::Config& config) {
  return std::make_unique<PolicyRunner>(config, LoadPolicyModel(config));
}

}  // namespace robot_edge::policy
