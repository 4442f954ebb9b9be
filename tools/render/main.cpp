// robot-edge-render: the README's pictures of the simulated robot, rendered by MuJoCo offscreen.
// The built-in humanoid (or --model) is driven as robot-edged drives it (sim::BusDriver: MIT
// frames through the simulated motors): STAND while hanging in the gantry, lowered, released,
// standing on its own; then DAMP, and 3 s later where it ended. CTest runs --compare against the
// committed pictures, so they stay true to the model and the gains.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "cli/cli.hpp"
#include "config/config.hpp"
#include "image.hpp"
#include "offscreen.hpp"
#include "sim/bus_driver.hpp"
#include "sim/mjcf_compat.hpp"
#include "sim/mujoco_plant.hpp"
#include "strip.hpp"

namespace robot_edge::render {
namespace {

constexpr int kWidth = 640, kHeight = 480;
constexpr double kMaxDiffering = 0.005;  // of the pixels (the robot alone covers ~10 %)
constexpr int kChannelThreshold = 32;    // of 255: anti-aliasing and rasteriser differences pass
constexpr std::int64_t kS = 1'000'000;

struct Options {
  std::string config = ROBOT_EDGE_DEFAULT_CONFIG;
  std::string model = sim::DefaultModelPath();
  std::string out, compare;
  std::string same_a, same_b;
  std::string strip;  // a qpos log: --out is then the strip's PNG
  StripOptions strip_options;
};

struct CommandLine {
  Options options;
  bool same = false, help = false, version = false;
};

// The command line, declared once (cli/spec.hpp): its parser and --help come from this Spec.
cli::Spec RenderSpec(CommandLine* c) {
  Options* o = &c->options;
  auto text = [](std::string* field) {
    return [field](const std::string& n, const std::string& v) {
      if (v.empty()) throw cli::UsageError(n + " needs a value");
      *field = v;
    };
  };
  auto seconds = [](double* field) {
    return [field](const std::string& n, const std::string& v) {
      *field = cli::ParseNumber(n, v, "seconds");
      if (*field < 0) throw cli::UsageError(n + ": '" + v + "' is negative");
    };
  };
  cli::Spec spec;
  spec.program = "robot-edge-render";
  spec.synopsis =
      "[--config FILE] [--model FILE.xml] (--out DIR | --compare DIR)\n"
      "  or:  robot-edge-render --same A.png B.png\n"
      "  or:  robot-edge-render --strip QPOS_LOG --model FILE.xml --out FILE.png [--from S]\n"
      "                         [--every S]";
  spec.description =
      "Renders standing.png (the robot on its own feet after the gantry released it) and\n"
      "damp.png (3 s after DAMP) with MuJoCo offscreen (EGL, no display needed).\n";
  spec.arguments = true;  // --same's two pictures
  spec.argument_hints = {cli::Files("*.png")};
  spec.options = {
      {"Options:",
       {cli::Valued("--config", "FILE", "the robot-edge config (default: the repository's)",
                    text(&o->config))
            .Completes(cli::Files("*.yaml")),
        cli::Valued("--model", "FILE.xml", "the MJCF model (default: the built-in humanoid)",
                    text(&o->model))
            .Completes(cli::Files("*.xml")),
        cli::Valued("--out", "DIR", "write the pictures into DIR (with --strip: the PNG)",
                    text(&o->out))
            .Completes(cli::Files()),
        cli::Valued("--compare", "DIR",
                    "render them and compare with DIR's: exit 1 when more than 0.5 % of a\n"
                    "picture's pixels differ (the new ones are written to a temporary\n"
                    "directory, named in the output: look at them, then use --out)",
                    text(&o->compare))
            .Completes(cli::Dirs()),
        cli::Flag("--same", "A B: exit 1 when more than 0.5 % of the two pictures' pixels differ",
                  [c](auto&, auto&) { c->same = true; }),
        cli::Valued("--strip", "LOG",
                    "six frames of a real run side by side (1200 x 360 px) into --out\n"
                    "FILE.png: the states LOG recorded (scripts/sim2sim --qpos-log), the\n"
                    "camera at the robot's side; the model is loaded as robot-edge-sim\n"
                    "loads it (MuJoCo 3's MJCF translated)",
                    text(&o->strip))
            .Completes(cli::Files()),
        cli::Valued("--from", "S", "--strip: the first frame at S seconds (default 10)",
                    seconds(&o->strip_options.from_s)),
        cli::Valued("--every", "S", "--strip: a frame every S seconds (default 0.15)",
                    seconds(&o->strip_options.every_s)),
        cli::Flag("--help", "print this help and exit", [c](auto&, auto&) { c->help = true; })
            .First(),
        cli::Flag("--version", "print the version and exit", [c](auto&, auto&) {
          c->version = true;
        }).First()}}};
  spec.epilogue =
      "Exit status:\n"
      "  0  done (pictures alike)\n"
      "  1  pictures differ, or a failure (config, model, EGL, PNG)\n"
      "  2  bad command line\n";
  spec.help_column = 19;
  return spec;
}

// The checks across options; throws cli::UsageError.
void Check(CommandLine* c, const std::vector<std::string>& arguments) {
  if (c->same) {
    if (arguments.size() != 2) throw cli::UsageError("--same takes two pictures: A.png B.png");
    c->options.same_a = arguments[0];
    c->options.same_b = arguments[1];
    return;
  }
  if (!arguments.empty()) throw cli::UsageError("unexpected argument '" + arguments[0] + "'");
  if (c->options.out.empty() == c->options.compare.empty()) {
    throw cli::UsageError("give one of --out and --compare");
  }
}

struct Picture {
  std::string name;
  Image image;
};

// The camera follows the base across the floor, at a fixed height and angle.
Camera Following(const sim::MujocoPlant& plant) {
  Camera c;
  const sim::GroundTruth t = plant.truth().value();
  c.lookat[0] = t.base_position_m[0];
  c.lookat[1] = t.base_position_m[1];
  return c;
}

std::vector<Picture> RenderSession(const config::Config& config, const std::string& model) {
  auto plant = std::make_unique<sim::MujocoPlant>(config, model, 1.0);
  const sim::MujocoPlant& physics = *plant;
  sim::BusDriver d(config, std::move(plant));
  OffscreenRenderer renderer(physics.model(), kWidth, kHeight);
  std::vector<Picture> pictures;
  d.Run(2 * kS);  // STAND, hanging
  if (d.Execute("gantry 0.62").rfind("ok", 0) != 0) throw std::runtime_error("gantry refused");
  d.Run(2 * kS);
  d.Execute("gantry off");
  d.Run(2 * kS);
  pictures.push_back({"standing", renderer.Render(physics.data(), Following(physics))});
  d.Damp();
  d.Run(3 * kS);
  pictures.push_back({"damp", renderer.Render(physics.data(), Following(physics))});
  return pictures;
}

int Compare(const std::vector<Picture>& pictures, const std::string& dir) {
  const std::filesystem::path fresh =
      std::filesystem::temp_directory_path() / "robot-edge-render-new";
  std::filesystem::create_directories(fresh);
  int failures = 0;
  for (const Picture& p : pictures) {
    const std::string committed = dir + "/" + p.name + ".png";
    WritePng((fresh / (p.name + ".png")).string(), p.image);
    const double differing = DifferingPixels(ReadPng(committed), p.image, kChannelThreshold);
    const bool ok = differing <= kMaxDiffering;
    std::printf("robot-edge-render: %-10s %5.2f %% of the pixels differ from %s: %s\n",
                p.name.c_str(), differing * 100, committed.c_str(), ok ? "ok" : "CHANGED");
    failures += ok ? 0 : 1;
  }
  if (failures > 0) {
    std::printf(
        "robot-edge-render: the new pictures are in %s; if the change is meant, write "
        "them with --out %s\n",
        fresh.c_str(), dir.c_str());
  }
  return failures > 0 ? 1 : 0;
}

// --strip: the qpos log's frames side by side, written to --out.
int WriteStrip(const Options& o) {
  sim::LoadedMjcf loaded = sim::LoadMjcf(o.model);
  mjModel* model = loaded.model;
  try {
    const Image strip = RenderStrip(model, ReadQposLog(o.strip, model->nq), o.strip_options);
    WritePng(o.out, strip);
  } catch (...) {
    mj_deleteModel(model);
    throw;
  }
  mj_deleteModel(model);
  std::printf("robot-edge-render: wrote %s\n", o.out.c_str());
  return 0;
}

}  // namespace
}  // namespace robot_edge::render

int main(int argc, char** argv) {
  using namespace robot_edge::render;
  namespace cli = robot_edge::cli;
  const std::vector<std::string> args(argv + 1, argv + argc);
  CommandLine c;
  const cli::Spec spec = RenderSpec(&c);
  if (cli::WantsCompletion(args)) {
    std::fputs(cli::BashCompletion(spec).c_str(), stdout);
    return 0;
  }
  try {
    const cli::Parsed parsed = cli::Parse(spec, args);
    if (!parsed.first) Check(&c, parsed.arguments);
  } catch (const cli::UsageError& e) {
    std::fprintf(stderr, "robot-edge-render: %s\n%s", e.what(), cli::Help(spec).c_str());
    return 2;
  }
  if (c.help) {
    std::fputs(cli::Help(spec).c_str(), stdout);
    return 0;
  }
  if (c.version) {
    std::printf("robot-edge-render %s\n", ROBOT_EDGE_VERSION);
    return 0;
  }
  const Options* options = &c.options;
  try {
    if (!options->same_a.empty()) {
      const double differing =
          DifferingPixels(ReadPng(options->same_a), ReadPng(options->same_b), kChannelThreshold);
      std::printf("robot-edge-render: %.2f %% of the pixels differ\n", differing * 100);
      return differing <= kMaxDiffering ? 0 : 1;
    }
    if (!options->strip.empty()) return WriteStrip(*options);
    const auto config = robot_edge::config::LoadConfig(options->config);
    const std::vector<Picture> pictures = RenderSession(config, options->model);
    if (!options->compare.empty()) return Compare(pictures, options->compare);
    std::filesystem::create_directories(options->out);
    for (const Picture& p : pictures) {
      const std::string path = options->out + "/" + p.name + ".png";
      WritePng(path, p.image);
      std::printf("robot-edge-render: wrote %s\n", path.c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "robot-edge-render: %s\n", e.what());
    return 1;
  }
}
