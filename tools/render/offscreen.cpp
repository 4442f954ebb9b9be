#include "offscreen.hpp"

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace robot_edge::render {
namespace {

constexpr const char* kPackages =
    " (Debian: libegl1 libegl-mesa0 libgl1-mesa-dri; scripts/bootstrap)";

[[noreturn]] void Fail(const std::string& what) {
  throw std::runtime_error(what + ": EGL error 0x" + [] {
    char hex[16];
    std::snprintf(hex, sizeof(hex), "%x", static_cast<unsigned>(eglGetError()));
    return std::string(hex);
  }() + kPackages);
}

}  // namespace

struct OffscreenRenderer::Gl {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  ~Gl() {
    if (context != EGL_NO_CONTEXT) {
      eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      eglDestroyContext(display, context);
    }
    if (display != EGL_NO_DISPLAY) eglTerminate(display);
  }
};

OffscreenRenderer::OffscreenRenderer(const mjModel_* model, int width, int height)
    : gl_(std::make_unique<Gl>()) {
  const auto get_platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
      eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (!get_platform_display) Fail("no eglGetPlatformDisplayEXT");
  gl_->display = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  if (gl_->display == EGL_NO_DISPLAY || !eglInitialize(gl_->display, nullptr, nullptr)) {
    Fail("no EGL display on Mesa's surfaceless platform");
  }
  // Attribute, value pairs.
  // clang-format off
  const EGLint attributes[] = {EGL_RED_SIZE,     8, EGL_GREEN_SIZE,      8,
                               EGL_BLUE_SIZE,    8, EGL_DEPTH_SIZE,      24,
                               EGL_STENCIL_SIZE, 8, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                               EGL_SURFACE_TYPE, EGL_PBUFFER_BIT,  // (none: window, not here)
                               EGL_NONE};
  // clang-format on
  EGLConfig config;
  EGLint count = 0;
  if (!eglChooseConfig(gl_->display, attributes, &config, 1, &count) || count < 1) {
    Fail("no EGL config for desktop OpenGL");
  }
  if (!eglBindAPI(EGL_OPENGL_API)) Fail("EGL cannot bind desktop OpenGL");
  gl_->context = eglCreateContext(gl_->display, config, EGL_NO_CONTEXT, nullptr);
  if (gl_->context == EGL_NO_CONTEXT) Fail("no OpenGL context");
  if (!eglMakeCurrent(gl_->display, EGL_NO_SURFACE, EGL_NO_SURFACE, gl_->context)) {
    Fail("the OpenGL context cannot be made current without a surface");
  }
  scene_ = std::make_unique<Scene>(model, /*offscreen=*/true, width, height);
}

OffscreenRenderer::~OffscreenRenderer() = default;

Image OffscreenRenderer::Render(const mjData_* data, const Camera& camera) {
  const int w = scene_->offscreen_width(), h = scene_->offscreen_height();
  scene_->Draw(data, camera, w, h);
  return scene_->ReadPixels(w, h);
}

}  // namespace robot_edge::render
