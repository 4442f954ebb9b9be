// An RGB picture, 8 bits per channel, rows top to bottom; written and read as PNG (libpng).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace robot_edge::render {

struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;  // width × height × 3
};

// Throw std::runtime_error naming the file and what went wrong.
void WritePng(const std::string& path, const Image& image);
Image ReadPng(const std::string& path);

// The share of pixels (0..1) where some channel differs by more than `threshold`; 1 when the
// sizes differ.
double DifferingPixels(const Image& a, const Image& b, int threshold);

}  // namespace robot_edge::render
