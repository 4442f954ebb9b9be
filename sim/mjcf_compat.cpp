#include "sim/mjcf_compat.hpp"

#include <expat.h>
#include <mujoco/mujoco.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace robot_edge::sim {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxIncludeDepth = 16;

// MuJoCo-3 elements and attributes that 2.2.2 lacks and this pre-pass does not translate: refused
// here with a reason, before 2.2.2's own less precise message.
constexpr std::array<std::string_view, 9> kUnsupportedElements = {
    "frame",    "replicate", "attach",   "plugin",    "extension",
    "instance", "flex",      "flexcomp", "deformable"};
struct UnsupportedAttribute {
  std::string_view element, attribute;
};
constexpr std::array<UnsupportedAttribute, 2> kUnsupportedAttributes = {{
    {"body", "gravcomp"},
    {"joint", "actuatorgravcomp"},
}};

std::string Escape(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string AbsoluteDir(const fs::path& base, const std::string& dir) {
  fs::path p = fs::path(dir).is_absolute() ? fs::path(dir) : base / dir;
  std::string s = p.lexically_normal().string();
  if (s.empty() || s.back() != '/') s += '/';  // MuJoCo appends the file name to the directory
  return s;
}

// An actuatorfrcrange / actuatorfrclimited seen on a joint; resolved when the whole model (and
// so its last word on autolimits) has been read.
struct PendingRange {
  std::string joint, where;
  std::string range;    // "" = none given
  std::string limited;  // "", "true", "false" or "auto"
};

class Translator {
 public:
  explicit Translator(const std::string& path)
      : main_(fs::absolute(path).lexically_normal()), base_(main_.parent_path()) {}

  MjcfTranslation Run() {
    ParseFile(main_, 0);
    ResolveRanges();
    if (compiler_rewrites_ > 0 || includes_ > 0) {
      out_.translated.push_back("asset paths made absolute");
    }
    if (includes_ > 0) out_.translated.push_back("<include> expanded (" + Count(includes_) + ")");
    if (dropped_sensors_ > 0) {
      out_.translated.push_back("<jointactuatorfrc> sensors dropped (" + Count(dropped_sensors_) +
                                ")");
    }
    return std::move(out_);
  }

 private:
  struct File {
    Translator* self = nullptr;
    fs::path path;
    XML_Parser parser = nullptr;
    int depth = 0;  // element depth within this file
    bool included = false;
  };

  static std::string Count(int n) { return std::to_string(n); }

  std::string Where(const File& f) const {
    return f.path.string() + ":" + std::to_string(XML_GetCurrentLineNumber(f.parser));
  }

  [[noreturn]] void Refuse(const File& f, std::string_view element, std::string_view attribute,
                           const std::string& reason) const {
    std::string tag = "<" + std::string(element);
    if (!attribute.empty()) tag += " " + std::string(attribute);
    throw std::runtime_error(Where(f) + ": " + tag + ">: " + reason);
  }

  void ParseFile(const fs::path& path, int include_depth) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read the MJCF file " + path.string());
    std::stringstream text;
    text << in.rdbuf();
    const std::string xml = text.str();
    File file{this, path, XML_ParserCreate(nullptr), 0, include_depth > 0};
    include_depth_ = include_depth;
    XML_SetUserData(file.parser, &file);
    XML_SetElementHandler(file.parser, &Translator::OnStart, &Translator::OnEnd);
    const auto status = XML_Parse(file.parser, xml.data(), static_cast<int>(xml.size()), 1);
    if (error_) {
      XML_ParserFree(file.parser);
      std::rethrow_exception(error_);
    }
    if (status != XML_STATUS_OK) {
      const std::string message =
          Where(file) + ": not well-formed XML: " + XML_ErrorString(XML_GetErrorCode(file.parser));
      XML_ParserFree(file.parser);
      throw std::runtime_error(message);
    }
    XML_ParserFree(file.parser);
  }

  // Expat calls back into C++ from C: an exception must not cross it. The first error is kept,
  // the parse stopped, and the error rethrown by ParseFile's caller chain.
  static void OnStart(void* data, const XML_Char* name, const XML_Char** attributes) {
    File* f = static_cast<File*>(data);
    try {
      f->self->Start(*f, name, attributes);
    } catch (...) {
      f->self->error_ = std::current_exception();
      XML_StopParser(f->parser, XML_FALSE);
    }
  }
  static void OnEnd(void* data, const XML_Char* name) {
    File* f = static_cast<File*>(data);
    if (!f->self->error_) f->self->End(*f, name);  // expat ends an empty element after a stop
  }

  void Start(File& f, std::string_view name, const XML_Char** attributes) {
    const int depth = f.depth++;
    MjcfElement element{std::string(name),
                        {},
                        f.path.string(),
                        static_cast<int>(XML_GetCurrentLineNumber(f.parser))};
    std::vector<std::pair<std::string, std::string>> attrs;
    for (int i = 0; attributes[i] != nullptr; i += 2) {
      attrs.emplace_back(attributes[i], attributes[i + 1]);
      element.attributes.emplace_back(attributes[i]);
    }
    out_.elements.push_back(element);
    if (depth == 0) {
      if (name != "mujoco") Refuse(f, name, "", "the top element of an MJCF file is <mujoco>");
      if (f.included) return;  // an included file's children take the <include>'s place
      Emit(name, attrs);
      // MuJoCo 3's defaults, stated first: the model's own <compiler> overrides them.
      out_.xml += "\n<compiler autolimits=\"true\" meshdir=\"" + Escape(AbsoluteDir(base_, "")) +
                  "\" texturedir=\"" + Escape(AbsoluteDir(base_, "")) + "\">";
      out_.xml += "</compiler>";
      return;
    }
    CheckSupported(f, name, attrs);
    if (name == "default") ++in_default_;
    if (name == "include") {
      Include(f, attrs);
      skip_end_.push_back(true);
      return;
    }
    if (name == "compiler") RewriteCompiler(attrs);
    if ((name == "hfield" || name == "skin") && Find(attrs, "file") != nullptr) {
      std::string* file = Find(attrs, "file");
      if (!fs::path(*file).is_absolute()) *file = (base_ / *file).lexically_normal().string();
    }
    if (name == "joint") TakeForceRange(f, attrs);
    if (name == "jointactuatorfrc") {
      // MuJoCo 3's sensor of a joint's actuator force (unitree_mujoco's g1_29dof.xml has 29):
      // 2.2.2 has none. Dropped: robot-edge-sim finds the sensors it reads (imu_quat, imu_gyro,
      // imu_accel) by name and reports the torque it applies itself.
      ++dropped_sensors_;
      skip_end_.push_back(true);
      return;
    }
    skip_end_.push_back(false);
    Emit(name, attrs);
  }

  void End(File& f, std::string_view name) {
    const int depth = --f.depth;
    if (depth == 0) {
      if (!f.included) out_.xml += "\n</" + std::string(name) + ">\n";
      return;
    }
    if (name == "default") --in_default_;
    const bool skip = skip_end_.back();
    skip_end_.pop_back();
    if (!skip) out_.xml += "</" + std::string(name) + ">";
  }

  static std::string* Find(std::vector<std::pair<std::string, std::string>>& attrs,
                           std::string_view key) {
    for (auto& [k, v] : attrs) {
      if (k == key) return &v;
    }
    return nullptr;
  }

  void Emit(std::string_view name, const std::vector<std::pair<std::string, std::string>>& attrs) {
    out_.xml += "\n<" + std::string(name);
    for (const auto& [k, v] : attrs) out_.xml += " " + k + "=\"" + Escape(v) + "\"";
    out_.xml += ">";
  }

  void CheckSupported(const File& f, std::string_view name,
                      const std::vector<std::pair<std::string, std::string>>& attrs) const {
    if (std::find(kUnsupportedElements.begin(), kUnsupportedElements.end(), name) !=
        kUnsupportedElements.end()) {
      Refuse(f, name, "",
             "a MuJoCo 3 element that MuJoCo 2.2.2 (Debian 12's, which robot-edge-sim uses) "
             "lacks and robot-edge does not translate");
    }
    for (const auto& [k, v] : attrs) {
      for (const UnsupportedAttribute& u : kUnsupportedAttributes) {
        if (u.element == name && u.attribute == k) {
          Refuse(f, name, k,
                 "a MuJoCo 3 attribute that MuJoCo 2.2.2 (Debian 12's, which robot-edge-sim "
                 "uses) lacks and robot-edge does not translate");
        }
      }
    }
  }

  void Include(const File& f, const std::vector<std::pair<std::string, std::string>>& attrs) {
    const std::string* file = nullptr;
    for (const auto& [k, v] : attrs) {
      if (k == "file") file = &v;
    }
    if (file == nullptr) Refuse(f, "include", "", "has no file");
    // MuJoCo reads an included file's path relative to the main model's directory.
    const fs::path path =
        (fs::path(*file).is_absolute() ? fs::path(*file) : base_ / *file).lexically_normal();
    if (!included_.insert(path.string()).second) {
      Refuse(f, "include", "file", path.string() + " is included twice");
    }
    if (include_depth_ + 1 > kMaxIncludeDepth) {
      Refuse(f, "include", "file", "includes nest deeper than " + Count(kMaxIncludeDepth));
    }
    ++includes_;
    const int depth = include_depth_;
    ParseFile(path, depth + 1);
    include_depth_ = depth;
  }

  void RewriteCompiler(std::vector<std::pair<std::string, std::string>>& attrs) {
    for (auto& [k, v] : attrs) {
      if (k == "meshdir" || k == "texturedir" || k == "assetdir") {
        v = AbsoluteDir(base_, v);
        ++compiler_rewrites_;
      }
      if (k == "autolimits") autolimits_ = v == "true";
    }
  }

  void TakeForceRange(const File& f, std::vector<std::pair<std::string, std::string>>& attrs) {
    PendingRange pending;
    bool any = false;
    std::string name;
    for (auto it = attrs.begin(); it != attrs.end();) {
      if (it->first == "name") name = it->second;
      if (it->first == "actuatorfrcrange" || it->first == "actuatorfrclimited") {
        if (in_default_ > 0) {
          Refuse(f, "joint", it->first,
                 "in a <default> class: robot-edge translates it on each joint only; move it "
                 "onto the joints");
        }
        (it->first == "actuatorfrcrange" ? pending.range : pending.limited) = it->second;
        any = true;
        it = attrs.erase(it);
        continue;
      }
      ++it;
    }
    if (!any) return;
    pending.where = Where(f);
    if (name.empty() && !(pending.limited == "false")) {
      Refuse(f, "joint", "actuatorfrcrange",
             "the joint has no name: robot-edge clamps a named joint's torque; name it");
    }
    pending.joint = name;
    ++force_attributes_;
    pending_.push_back(pending);
  }

  void ResolveRanges() {
    for (const PendingRange& p : pending_) {
      auto refuse = [&](const std::string& attribute, const std::string& reason) {
        throw std::runtime_error(p.where + ": <joint " + attribute + ">: joint '" + p.joint +
                                 "': " + reason);
      };
      if (!p.limited.empty() && p.limited != "true" && p.limited != "false" &&
          p.limited != "auto") {
        refuse("actuatorfrclimited", "'" + p.limited + "' is not true, false or auto");
      }
      const bool limited =
          p.limited == "true" || ((p.limited.empty() || p.limited == "auto") && !p.range.empty());
      if (!limited) continue;
      if (p.range.empty()) refuse("actuatorfrclimited", "true without actuatorfrcrange");
      if ((p.limited.empty() || p.limited == "auto") && !autolimits_) {
        refuse("actuatorfrcrange", "given without actuatorfrclimited under autolimits=\"false\"");
      }
      std::istringstream in(p.range);
      JointForceRange r{p.joint, 0, 0};
      std::string extra;
      if (!(in >> r.min >> r.max) || (in >> extra) || !(r.min <= r.max)) {
        refuse("actuatorfrcrange", "'" + p.range + "' is not two numbers min <= max (N·m or N)");
      }
      out_.force_ranges.push_back(r);
    }
    if (force_attributes_ > 0) {
      out_.translated.push_back("actuatorfrcrange as a torque clamp (" +
                                Count(static_cast<int>(out_.force_ranges.size())) + " joints)");
    }
    out_.translated.push_back(autolimits_ ? "autolimits true (MuJoCo 3's default)"
                                          : "autolimits false (the model's)");
  }

 public:
  std::exception_ptr error_;

 private:
  fs::path main_, base_;
  MjcfTranslation out_;
  std::vector<bool> skip_end_;  // per open element below the root: its end tag is not written
  std::vector<PendingRange> pending_;
  std::set<std::string> included_;
  int in_default_ = 0;
  int include_depth_ = 0;
  int includes_ = 0;
  int compiler_rewrites_ = 0;
  int force_attributes_ = 0;
  int dropped_sensors_ = 0;
  bool autolimits_ = true;  // the last <compiler autolimits> read; MuJoCo 3's default
};

}  // namespace

MjcfTranslation TranslateMjcf(const std::string& path) {
  Translator translator(path);
  MjcfTranslation result;
  try {
    result = translator.Run();
  } catch (...) {
    if (translator.error_) std::rethrow_exception(translator.error_);
    throw;
  }
  if (translator.error_) std::rethrow_exception(translator.error_);
  return result;
}

std::string LocateMjcfError(const MjcfTranslation& translation, const std::string& mujoco_error) {
  std::smatch m;
  std::string attribute, element;
  if (std::regex_search(mujoco_error, m, std::regex("unrecognized attribute: '([^']+)'"))) {
    attribute = m[1];
  }
  if (std::regex_search(mujoco_error, m, std::regex("Element '([^']+)'"))) element = m[1];
  if (element.empty() &&
      std::regex_search(mujoco_error, m, std::regex("unrecognized model element '([^']+)'"))) {
    element = m[1];
  }
  if (element.empty()) return "";
  for (const MjcfElement& e : translation.elements) {
    if (e.name != element) continue;
    if (!attribute.empty() &&
        std::find(e.attributes.begin(), e.attributes.end(), attribute) == e.attributes.end()) {
      continue;
    }
    return e.file + ":" + std::to_string(e.line) + ": <" + element +
           (attribute.empty() ? "" : " " + attribute) + ">";
  }
  return "";
}

LoadedMjcf LoadMjcf(const std::string& path) {
  MjcfTranslation translation;
  try {
    translation = TranslateMjcf(path);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot load the MuJoCo model " + path + ": " + e.what());
  }
  // 2.2.2 loads from a file: the translation goes to a temporary one, removed at once.
  std::string temp = (fs::temp_directory_path() / "robot-edge-mjcf-XXXXXX.xml").string();
  const int fd = mkstemps(temp.data(), 4);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for " + path);
  const std::string& xml = translation.xml;
  const bool written = write(fd, xml.data(), xml.size()) == static_cast<ssize_t>(xml.size());
  close(fd);
  char error[1000] = "";
  mjModel* model = written ? mj_loadXML(temp.c_str(), nullptr, error, sizeof(error)) : nullptr;
  unlink(temp.c_str());
  if (!written) throw std::runtime_error("cannot write a temporary file for " + path);
  if (model == nullptr) {
    const std::string where = LocateMjcfError(translation, error);
    throw std::runtime_error(
        "cannot load the MuJoCo model " + path + ": " +
        (where.empty() ? std::string(error)
                       : where +
                             ": MuJoCo 2.2.2 (Debian 12's) refuses it and robot-edge does "
                             "not translate it (MuJoCo: " +
                             std::string(error) + ")"));
  }
  return {model, std::move(translation.force_ranges), std::move(translation.translated)};
}

}  // namespace robot_edge::sim
