#include "scene.hpp"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace robot_edge::render {

struct Scene::State {
  mjModel* model = nullptr;  // a copy: the offscreen size is set in it
  mjData* data = nullptr;    // scratch: the state drawn
  mjvScene scene;
  mjvOption option;
  mjrContext context;
  ~State() {
    mjr_freeContext(&context);
    mjv_freeScene(&scene);
    if (data) mj_deleteData(data);
    if (model) mj_deleteModel(model);
  }
};

Scene::Scene(const mjModel_* model, bool offscreen, int width, int height)
    : s_(std::make_unique<State>()) {
  s_->model = mj_copyModel(nullptr, model);
  s_->model->vis.global.offwidth = width;
  s_->model->vis.global.offheight = height;
  s_->data = mj_makeData(s_->model);
  mjv_defaultScene(&s_->scene);
  mjv_defaultOption(&s_->option);
  mjr_defaultContext(&s_->context);
  mjv_makeScene(s_->model, &s_->scene, 2000);
  mjr_makeContext(s_->model, &s_->context, mjFONTSCALE_100);
  const int buffer = offscreen ? mjFB_OFFSCREEN : mjFB_WINDOW;
  mjr_setBuffer(buffer, &s_->context);
  if (s_->context.currentBuffer != buffer) {
    throw std::runtime_error(std::string("MuJoCo's ") + (offscreen ? "offscreen" : "window") +
                             " framebuffer is not available in this OpenGL context");
  }
}

Scene::~Scene() = default;

int Scene::offscreen_width() const { return s_->context.offWidth; }
int Scene::offscreen_height() const { return s_->context.offHeight; }

void Scene::Draw(const mjData_* data, const Camera& camera, int width, int height) {
  mj_copyData(s_->data, s_->model, data);
  mjvCamera cam;
  mjv_defaultCamera(&cam);
  std::copy_n(camera.lookat, 3, cam.lookat);
  cam.distance = camera.distance_m;
  cam.azimuth = camera.azimuth_deg;
  cam.elevation = camera.elevation_deg;
  mjv_updateScene(s_->model, s_->data, &s_->option, nullptr, &cam, mjCAT_ALL, &s_->scene);
  mjr_render({0, 0, width, height}, &s_->scene, &s_->context);
}

Image Scene::ReadPixels(int width, int height) {
  Image image;
  image.width = width;
  image.height = height;
  const std::size_t row = static_cast<std::size_t>(width) * 3;
  image.rgb.resize(row * static_cast<std::size_t>(height));
  std::vector<std::uint8_t> bottom_up(image.rgb.size());
  mjr_readPixels(bottom_up.data(), nullptr, {0, 0, width, height}, &s_->context);
  for (int y = 0; y < height; ++y) {  // OpenGL's rows run bottom to top
    std::copy_n(bottom_up.data() + static_cast<std::size_t>(height - 1 - y) * row, row,
                image.rgb.data() + static_cast<std::size_t>(y) * row);
  }
  return image;
}

}  // namespace robot_edge::render
