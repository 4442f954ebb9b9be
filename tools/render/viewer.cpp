// robot-edge-viewer: a window on the simulated robot, for a user with a display. It draws the
// MuJoCo model in the state robot-edge-sim's control socket reports (`qpos`, every frame), or
// the model's stand keyframe without a socket. robot-edge-sim --viewer starts it.
// Left drag turns the camera, the wheel zooms; the camera follows the robot across the floor.
// Exit codes: 0 when the window is closed or the simulator goes away, 1 on an error (no display,
// no model, a socket that does not answer), 2 on a bad command line.
#include <GLFW/glfw3.h>
#include <mujoco/mujoco.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "image.hpp"
#include "scene.hpp"
#include "sim/mjcf_compat.hpp"
#include "sim/mujoco_plant.hpp"

namespace robot_edge::render {
namespace {

struct Options {
  std::string model = sim::DefaultModelPath();
  std::string control;
  std::string screenshot;
  bool help = false, version = false;
};

// The command line, declared once (cli/spec.hpp): its parser and --help come from this Spec.
cli::Spec ViewerSpec(Options* o) {
  auto text = [](std::string* field) {
    return [field](const std::string& n, const std::string& v) {
      if (v.empty()) throw cli::UsageError(n + " needs a value");
      *field = v;
    };
  };
  cli::Spec spec;
  spec.program = "robot-edge-viewer";
  spec.synopsis = "[--model FILE.xml] [--control SOCKET] [--screenshot FILE.png]";
  spec.description =
      "A window on the simulated robot: with --control, the live state of robot-edge-sim\n"
      "(robot-edge-sim --viewer starts it so); without, the model's stand keyframe. Left drag\n"
      "turns the camera, the wheel zooms.\n";
  spec.options = {
      {"Options:",
       {cli::Valued("--model", "FILE.xml", "the MJCF model (default: the built-in humanoid)",
                    text(&o->model))
            .Completes(cli::Files("*.xml")),
        cli::Valued("--control", "SOCKET", "robot-edge-sim's control socket", text(&o->control))
            .Completes(cli::Files()),
        cli::Valued("--screenshot", "FILE.png",
                    "write the window's third frame to FILE.png and exit (a check\n"
                    "that the window draws)",
                    text(&o->screenshot))
            .Completes(cli::Files("*.png")),
        cli::Flag("--help", "print this help and exit", [o](auto&, auto&) { o->help = true; })
            .First(),
        cli::Flag("--version", "print the version and exit", [o](auto&, auto&) {
          o->version = true;
        }).First()}}};
  spec.epilogue =
      "Exit status:\n"
      "  0  window closed or simulator stopped\n"
      "  1  a failure (model, display, the simulator's state does not fit the model)\n"
      "  2  bad command line\n";
  spec.help_column = 25;
  return spec;
}

// robot-edge-sim's control socket, one line out and one back.
class Control {
 public:
  explicit Control(const std::string& path)
      : fd_(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (fd_ < 0 || path.size() >= sizeof(addr.sun_path)) {
      throw std::runtime_error(path + ": not a usable socket path");
    }
    std::memcpy(addr.sun_path, path.c_str(), path.size());
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      throw std::runtime_error(path + ": cannot connect: " + std::strerror(errno));
    }
  }
  ~Control() { ::close(fd_); }
  Control(const Control&) = delete;
  Control& operator=(const Control&) = delete;

  // The reply to `line`; nullopt when the simulator has gone.
  std::optional<std::string> Ask(const std::string& line) {
    const std::string out = line + "\n";
    if (::send(fd_, out.data(), out.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(out.size())) {
      return std::nullopt;
    }
    for (;;) {
      if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string reply = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return reply;
      }
      char chunk[4096];
      const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
};

// Mouse: left drag turns, the wheel zooms (GLFW's callbacks reach it through the user pointer).
struct Input {
  Camera camera;
  bool dragging = false;
  double last_x = 0, last_y = 0;
};

void OnButton(GLFWwindow* w, int button, int action, int) {
  auto* in = static_cast<Input*>(glfwGetWindowUserPointer(w));
  if (button != GLFW_MOUSE_BUTTON_LEFT) return;
  in->dragging = action == GLFW_PRESS;
  glfwGetCursorPos(w, &in->last_x, &in->last_y);
}

void OnMove(GLFWwindow* w, double x, double y) {
  auto* in = static_cast<Input*>(glfwGetWindowUserPointer(w));
  if (!in->dragging) return;
  in->camera.azimuth_deg -= 0.3 * (x - in->last_x);
  in->camera.elevation_deg =
      std::clamp(in->camera.elevation_deg - 0.3 * (y - in->last_y), -89.0, -2.0);
  in->last_x = x;
  in->last_y = y;
}

void OnScroll(GLFWwindow* w, double, double dy) {
  auto* in = static_cast<Input*>(glfwGetWindowUserPointer(w));
  in->camera.distance_m = std::clamp(in->camera.distance_m * (1 - 0.1 * dy), 0.5, 20.0);
}

// Sets data's qpos from a `qpos` reply; false when it does not fit the model.
bool SetQpos(const mjModel* m, mjData* d, const std::string& reply) {
  if (reply.rfind("ok ", 0) != 0) return false;
  std::istringstream in(reply.substr(3));
  int i = 0;
  for (double v; in >> v; ++i) {
    if (i >= m->nq) return false;
    d->qpos[i] = v;
  }
  return i == m->nq;
}

int Run(const Options& o) {
  // As robot-edge-sim loads it: MJCF written for MuJoCo 3 translated (sim/mjcf_compat.hpp).
  mjModel* m = sim::LoadMjcf(o.model).model;
  mjData* d = mj_makeData(m);
  if (m->nkey > 0) mj_resetDataKeyframe(m, d, 0);
  std::optional<Control> control;
  if (!o.control.empty()) control.emplace(o.control);

  if (!glfwInit()) {
    throw std::runtime_error(
        "no display for a window (is DISPLAY set? on a machine without "
        "one, robot-edge-render draws pictures offscreen)");
  }
  glfwWindowHint(GLFW_SAMPLES, 4);
  GLFWwindow* window = glfwCreateWindow(960, 720, "robot-edge-viewer", nullptr, nullptr);
  if (!window) throw std::runtime_error("the window could not be created");
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);
  Input input;
  glfwSetWindowUserPointer(window, &input);
  glfwSetMouseButtonCallback(window, OnButton);
  glfwSetCursorPosCallback(window, OnMove);
  glfwSetScrollCallback(window, OnScroll);
  int status = 0;
  {
    Scene scene(m, /*offscreen=*/false, 960, 720);
    for (int frame = 1; !glfwWindowShouldClose(window); ++frame) {
      if (control) {
        const std::optional<std::string> reply = control->Ask("qpos");
        if (!reply) break;  // the simulator stopped
        if (!SetQpos(m, d, *reply)) {
          std::fprintf(stderr, "robot-edge-viewer: the simulator's state does not fit %s: %s\n",
                       o.model.c_str(), reply->substr(0, 120).c_str());
          status = 1;
          break;
        }
      }
      mj_kinematics(m, d);
      if (m->nq >= 7) {  // a floating base: follow it across the floor, and up the gantry
        input.camera.lookat[0] = d->qpos[0];
        input.camera.lookat[1] = d->qpos[1];
        input.camera.lookat[2] = std::max(0.3, 0.8 * d->qpos[2]);
      }
      int width = 0, height = 0;
      glfwGetFramebufferSize(window, &width, &height);
      scene.Draw(d, input.camera, width, height);
      if (!o.screenshot.empty() && frame == 3) {
        WritePng(o.screenshot, scene.ReadPixels(width, height));
        std::printf("robot-edge-viewer: wrote %s\n", o.screenshot.c_str());
        break;
      }
      glfwSwapBuffers(window);
      glfwPollEvents();
    }
  }
  glfwDestroyWindow(window);
  glfwTerminate();
  mj_deleteData(d);
  mj_deleteModel(m);
  return status;
}

}  // namespace
}  // namespace robot_edge::render

int main(int argc, char** argv) {
  using namespace robot_edge;
  const std::vector<std::string> args(argv + 1, argv + argc);
  render::Options options;
  const cli::Spec spec = render::ViewerSpec(&options);
  if (cli::WantsCompletion(args)) {
    std::fputs(cli::BashCompletion(spec).c_str(), stdout);
    return 0;
  }
  try {
    cli::Parse(spec, args);
  } catch (const cli::UsageError& e) {
    std::fprintf(stderr, "robot-edge-viewer: %s\n%s", e.what(), cli::Help(spec).c_str());
    return 2;
  }
  if (options.help) {
    std::fputs(cli::Help(spec).c_str(), stdout);
    return 0;
  }
  if (options.version) {
    std::printf("robot-edge-viewer %s\n", ROBOT_EDGE_VERSION);
    return 0;
  }
  try {
    return render::Run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "robot-edge-viewer: %s\n", e.what());
    return 1;
  }
}
