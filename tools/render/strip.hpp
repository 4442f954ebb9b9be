// A strip of frames side by side from a real run: the states a qpos log recorded (one line per
// sample: "TIME_S Q0 Q1 ...", the reply of robot-edge-sim's `qpos` with its time; scripts/sim2sim
// --qpos-log writes it), drawn offscreen from a camera beside the robot that follows its base.
// Pure but for reading the log; drawing needs the OffscreenRenderer's thread.
#pragma once

#include <string>
#include <vector>

#include "image.hpp"

struct mjModel_;

namespace robot_edge::render {

struct QposSample {
  double time_s = 0;
  std::vector<double> qpos;
};

// The log's samples in order. Throws std::runtime_error "FILE:LINE: ..." for a line that is not
// numbers, or whose count of positions is not `nq`.
std::vector<QposSample> ReadQposLog(const std::string& path, int nq);

// The sample whose time is nearest `time_s` (samples non-empty).
const QposSample& Nearest(const std::vector<QposSample>& samples, double time_s);

struct StripOptions {
  int frames = 6;
  double from_s = 10;      // the first frame's time in the log
  double every_s = 0.15;   // between frames
  int frame_width = 200;   // px; the strip is frames × this wide
  int frame_height = 360;  // px
};

// `frames` pictures of `model` at from_s, from_s + every_s, ..., side by side, the camera at the
// robot's side (following its base). Throws std::runtime_error when the log has no samples.
Image RenderStrip(const mjModel_* model, const std::vector<QposSample>& samples,
                  const StripOptions& options);

}  // namespace robot_edge::render
