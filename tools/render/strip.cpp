#include "strip.hpp"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "offscreen.hpp"

namespace robot_edge::render {

std::vector<QposSample> ReadQposLog(const std::string& path, int nq) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot be read");
  std::vector<QposSample> samples;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    QposSample s;
    if (!(fields >> s.time_s)) {
      throw std::runtime_error(path + ":" + std::to_string(number) + ": no time first");
    }
    for (double v; fields >> v;) s.qpos.push_back(v);
    if (!fields.eof() || static_cast<int>(s.qpos.size()) != nq) {
      throw std::runtime_error(path + ":" + std::to_string(number) + ": " +
                               std::to_string(s.qpos.size()) + " positions, the model has " +
                               std::to_string(nq));
    }
    samples.push_back(std::move(s));
  }
  return samples;
}

const QposSample& Nearest(const std::vector<QposSample>& samples, double time_s) {
  return *std::min_element(samples.begin(), samples.end(), [&](const auto& a, const auto& b) {
    return std::abs(a.time_s - time_s) < std::abs(b.time_s - time_s);
  });
}

Image RenderStrip(const mjModel_* model, const std::vector<QposSample>& samples,
                  const StripOptions& o) {
  if (samples.empty()) throw std::runtime_error("the qpos log has no samples");
  // A copy with a brighter headlight: models' own lights (Unitree's scene.xml) are set for a
  // window, and a small frame of a dark robot on a dark floor reads as black.
  mjModel* lit = mj_copyModel(nullptr, model);
  for (int i = 0; i < 3; ++i) {
    lit->vis.headlight.ambient[i] = 0.45f;
    lit->vis.headlight.diffuse[i] = 0.75f;
  }
  OffscreenRenderer renderer(lit, o.frame_width, o.frame_height);
  mj_deleteModel(lit);
  mjData* data = mj_makeData(model);
  Image strip{o.frame_width * o.frames, o.frame_height, {}};
  strip.rgb.resize(static_cast<std::size_t>(strip.width) * strip.height * 3);
  for (int f = 0; f < o.frames; ++f) {
    const QposSample& s = Nearest(samples, o.from_s + f * o.every_s);
    std::copy(s.qpos.begin(), s.qpos.end(), data->qpos);
    mj_kinematics(model, data);
    Camera camera;  // at the robot's side, level with its hips, following its base
    camera.lookat[0] = model->nq >= 7 ? data->qpos[0] : 0;
    camera.lookat[1] = model->nq >= 7 ? data->qpos[1] : 0;
    camera.lookat[2] = model->nq >= 7 ? 0.8 * data->qpos[2] : 0.6;
    camera.distance_m = 3.0;
    camera.azimuth_deg = 115;
    camera.elevation_deg = -10;
    const Image frame = renderer.Render(data, camera);
    for (int row = 0; row < frame.height; ++row) {
      std::memcpy(&strip.rgb[(static_cast<std::size_t>(row) * strip.width + f * frame.width) * 3],
                  &frame.rgb[static_cast<std::size_t>(row) * frame.width * 3],
                  static_cast<std::size_t>(frame.width) * 3);
    }
  }
  mj_deleteData(data);
  return strip;
}

}  // namespace robot_edge::render
