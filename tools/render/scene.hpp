// MuJoCo's scene and renderer for one model, in the OpenGL context current on the calling thread
// (EGL offscreen, or a GLFW window): draws a state from a camera, reads the pixels back.
// Threads: the thread whose context is current, always the same one.
#pragma once

#include <memory>

#include "image.hpp"

struct mjModel_;
struct mjData_;

namespace robot_edge::render {

struct Camera {
  double lookat[3] = {0, 0, 0.5};  // m, world
  double distance_m = 2.2;
  double azimuth_deg = 135;
  double elevation_deg = -12;
};

class Scene {
 public:
  // `offscreen`: MuJoCo's offscreen framebuffer of width × height; else the window's.
  // Throws std::runtime_error when the context cannot give the framebuffer asked for.
  Scene(const mjModel_* model, bool offscreen, int width, int height);
  ~Scene();
  Scene(const Scene&) = delete;
  Scene& operator=(const Scene&) = delete;

  // The state `data` of the model (kinematics already computed) into width × height pixels.
  void Draw(const mjData_* data, const Camera& camera, int width, int height);
  // What Draw() drew, rows top to bottom.
  Image ReadPixels(int width, int height);
  int offscreen_width() const;
  int offscreen_height() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace robot_edge::render
