#include "image.hpp"

#include <png.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>

namespace robot_edge::render {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

File Open(const std::string& path, const char* mode) {
  File f(std::fopen(path.c_str(), mode));
  if (!f) throw std::runtime_error(path + ": cannot open");
  return f;
}

}  // namespace

void WritePng(const std::string& path, const Image& image) {
  File file = Open(path, "wb");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw std::runtime_error(path + ": cannot write PNG");
  }
  png_init_io(png, file.get());
  png_set_IHDR(png, info, static_cast<png_uint_32>(image.width),
               static_cast<png_uint_32>(image.height), 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < image.height; ++y) {
    png_write_row(png, image.rgb.data() + static_cast<std::size_t>(y) * image.width * 3);
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
}

Image ReadPng(const std::string& path) {
  png_image reader{};
  reader.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&reader, path.c_str())) {
    throw std::runtime_error(path + ": not a readable PNG: " + reader.message);
  }
  reader.format = PNG_FORMAT_RGB;
  Image image;
  image.width = static_cast<int>(reader.width);
  image.height = static_cast<int>(reader.height);
  image.rgb.resize(PNG_IMAGE_SIZE(reader));
  if (!png_image_finish_read(&reader, nullptr, image.rgb.data(), 0, nullptr)) {
    throw std::runtime_error(path + ": cannot decode PNG: " + reader.message);
  }
  return image;
}

double DifferingPixels(const Image& a, const Image& b, int threshold) {
  if (a.width != b.width || a.height != b.height || a.rgb.size() != b.rgb.size()) return 1.0;
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.rgb.size(); i += 3) {
    for (std::size_t c = 0; c < 3; ++c) {
      if (std::abs(int{a.rgb[i + c]} - int{b.rgb[i + c]}) > threshold) {
        ++differing;
        break;
      }
    }
  }
  return static_cast<double>(differing) / static_cast<double>(a.rgb.size() / 3);
}

}  // namespace robot_edge::render
