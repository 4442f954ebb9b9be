// policy_bench: what MOVE/POLICY costs (Google Benchmark; not a CTest test).
//   OnnxRun/*    one evaluation of the network (what onnx_avg_ms reports): the demo model and
//                the actor sizes of the usual training stacks (test::RandomMlp: random weights),
//                and an H1-sized LSTM actor exported by torch
//   InferOnce    the inference thread's whole step: observation, network, action, hand-off
//   Targets      the control thread's cost per tick in MOVE/POLICY: publish the inputs, take the
//                latest targets
// Run: ninja -C build policy_bench && build/tests/policy/policy_bench
#include <benchmark/benchmark.h>

#include "config/library_options.hpp"
#include "model_builder.hpp"
#include "policy/load.hpp"
#include "policy/onnx_graph.hpp"

namespace robot_edge::policy {
namespace {

std::unique_ptr<InferenceRuntime> Mlp(std::int64_t in, const std::vector<std::int64_t>& hidden,
                                      std::int64_t out) {
  return OnnxGraph::FromBytes(test::RandomMlp(in, hidden, out).Bytes(), "mlp");
}

void RunNetwork(benchmark::State& state, InferenceRuntime& net) {
  std::vector<float> in(net.input_size(), 0.1f), out(net.output_size());
  for (auto _ : state) {
    net.Run(in, out);
    benchmark::DoNotOptimize(out.data());
  }
}

void BM_OnnxRun_Demo(benchmark::State& state) {
  const config::Config c = config::LoadConfig(ROBOT_EDGE_POLICY_CONFIG);
  const auto net = LoadPolicyModel(config::PolicySetupOf(c));
  RunNetwork(state, *net);
}
BENCHMARK(BM_OnnxRun_Demo);

// legged_gym / rsl_rl default actor: [512, 256, 128], Elu.
void BM_OnnxRun_Actor45x512x256x128x12(benchmark::State& state) {
  const auto net = Mlp(45, {512, 256, 128}, 12);
  RunNetwork(state, *net);
}
BENCHMARK(BM_OnnxRun_Actor45x512x256x128x12);

// Isaac Lab's G1 29-DoF velocity actor: 96 values × 5 frames of history, [512, 256, 128].
void BM_OnnxRun_Actor480x512x256x128x29(benchmark::State& state) {
  const auto net = Mlp(96 * 5, {512, 256, 128}, 29);
  RunNetwork(state, *net);
}
BENCHMARK(BM_OnnxRun_Actor480x512x256x128x29);

// humanoid-gym: 47 values × 15 frames of history, [512, 256, 128].
void BM_OnnxRun_Actor705x512x256x128x12(benchmark::State& state) {
  const auto net = Mlp(47 * 15, {512, 256, 128}, 12);
  RunNetwork(state, *net);
}
BENCHMARK(BM_OnnxRun_Actor705x512x256x128x12);

// A smaller actor: [256, 128].
void BM_OnnxRun_Actor45x256x128x12(benchmark::State& state) {
  const auto net = Mlp(45, {256, 128}, 12);
  RunNetwork(state, *net);
}
BENCHMARK(BM_OnnxRun_Actor45x256x128x12);

// unitree_rl_gym's H1 actor size: 41 -> LSTM 64 -> [32] -> 10, exported by torch
// (tests/policy/recurrent/lstm64_h1.onnx), its state carried from each run to the next.
void BM_OnnxRun_Lstm41x64x32x10(benchmark::State& state) {
  const auto net = LoadOnnx(std::string(POLICY_RECURRENT_FIXTURES) + "/lstm64_h1.onnx");
  RunNetwork(state, *net);
}
BENCHMARK(BM_OnnxRun_Lstm41x64x32x10);

struct Ticking {
  config::Config config = config::LoadConfig(ROBOT_EDGE_POLICY_CONFIG);
  std::unique_ptr<PolicyRunner> runner = MakePolicyRunner(config::PolicySetupOf(config));
  std::vector<sm::JointMeasurement> joints = std::vector<sm::JointMeasurement>(25);
  sm::Inputs inputs;
  std::vector<sm::JointTarget> out = std::vector<sm::JointTarget>(25);
  std::int64_t now_us = 1'000'000;
  Ticking() {
    inputs.joints = joints;
    runner->Reset(now_us);
  }
  bool Tick() {
    now_us += 2000;
    return runner->Targets(now_us, sm::Velocity{0.3f, 0.0f, 0.0f}, inputs, out).status ==
           sm::PolicyStatus::kTargets;
  }
};

void BM_InferOnce_Demo(benchmark::State& state) {
  Ticking t;
  for (auto _ : state) {
    state.PauseTiming();
    t.Tick();  // something new to infer
    state.ResumeTiming();
    benchmark::DoNotOptimize(t.runner->InferOnce());
  }
}
BENCHMARK(BM_InferOnce_Demo);

void BM_Targets_ControlThreadPerTick(benchmark::State& state) {
  Ticking t;
  t.Tick();
  t.runner->InferOnce();
  // The clock stands still: the targets stay fresh (a real tick's path, not the stall's).
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        t.runner->Targets(t.now_us, sm::Velocity{0.3f, 0.0f, 0.0f}, t.inputs, t.out));
  }
}
BENCHMARK(BM_Targets_ControlThreadPerTick);

}  // namespace
}  // namespace robot_edge::policy
