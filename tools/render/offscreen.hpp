// MuJoCo's renderer without a display: an OpenGL context from EGL on Mesa's surfaceless platform
// (software rendering with llvmpipe when there is no GPU), drawing into MuJoCo's offscreen buffer.
//
// Threads: one owner (the GL context is current on the thread that made it).
// Throws std::runtime_error at construction when EGL or the context cannot be had, saying which
// Debian packages provide them.
#pragma once

#include <memory>

#include "image.hpp"
#include "scene.hpp"

namespace robot_edge::render {

class OffscreenRenderer {
 public:
  OffscreenRenderer(const mjModel_* model, int width, int height);
  ~OffscreenRenderer();
  OffscreenRenderer(const OffscreenRenderer&) = delete;
  OffscreenRenderer& operator=(const OffscreenRenderer&) = delete;

  // The model in the state `data`, seen from `camera`.
  Image Render(const mjData_* data, const Camera& camera);

 private:
  struct Gl;
  std::unique_ptr<Gl> gl_;  // first made, last destroyed
  std::unique_ptr<Scene> scene_;
};

}  // namespace robot_edge::render
