// MJCF as current MuJoCo reads it, on the MuJoCo this project builds against (Debian 12's
// libmujoco-dev, 2.2.2). Users bring models written for MuJoCo 3 (Unitree's h1.xml, g1_*.xml,
// h1_2*.xml); 2.2.2 refuses them. Building MuJoCo 3 in the project is not possible where it is
// built (no network but Debian's and npm's registries), so a pre-pass translates, as text, what
// MuJoCo 3 means into what 2.2.2 computes:
//
//   <compiler autolimits>    MuJoCo 3's default is true; 2.2.2's false. The translation states
//                            autolimits="true" first, so `range` without `limited` limits the
//                            joint (likewise ctrlrange, forcerange); a model's own autolimits
//                            still wins.
//   joint actuatorfrcrange   removed from the XML and returned as a JointForceRange: the plant
//   joint actuatorfrclimited clamps the torque its motor applies to that joint (MuJoCo 3 clamps
//                            the joint's total actuator force: the same when one motor drives it).
//   <include file>           expanded in place (the included files are translated too).
//   <jointactuatorfrc>       MuJoCo 3's joint actuator-force sensor (unitree_mujoco's
//                            g1_29dof.xml has one per joint): dropped. The plant finds the sensors
//                            it reads by name and reports the torque it applies itself.
//   asset directories        meshdir / texturedir / assetdir, hfield and skin files made absolute,
//                            so the translation loads from anywhere (a temporary file).
//
// Refused, naming the file, line, element and attribute: MuJoCo-3-only elements and attributes
// this pre-pass does not translate (frame, replicate, attach, plugin, flex, gravcomp, ...),
// actuatorfrcrange in a <default> class, on an unnamed joint, or reversed. Whatever else 2.2.2
// then refuses is reported by LoadMjcf with its place in the user's files.
//
// Pure but for reading the files. Threads: none.
#pragma once

#include <string>
#include <vector>

struct mjModel_;

namespace robot_edge::sim {

// A joint's actuator force range (N·m or N), from MuJoCo 3's actuatorfrcrange.
struct JointForceRange {
  std::string joint;  // the joint's name in the model
  double min = 0;
  double max = 0;
};

// Where an element of the user's files is, for messages.
struct MjcfElement {
  std::string name;                     // element, e.g. "joint"
  std::vector<std::string> attributes;  // its attribute names
  std::string file;
  int line = 0;
};

struct MjcfTranslation {
  std::string xml;                            // what 2.2.2 loads
  std::vector<JointForceRange> force_ranges;  // for the plant to apply
  std::vector<std::string> translated;        // what was translated, e.g. "actuatorfrcrange (10)"
  std::vector<MjcfElement> elements;          // every element in document order
};

// Translates `path` (and what it includes). Throws std::runtime_error "FILE:LINE: <element
// attribute=...>: reason" for what it refuses, or when a file cannot be read or parsed.
MjcfTranslation TranslateMjcf(const std::string& path);

// The place in the user's files of what MuJoCo's error message names ("unrecognized attribute:
// 'x'" of "Element 'y'"), as "FILE:LINE: <y x>"; "" when it names none.
std::string LocateMjcfError(const MjcfTranslation& translation, const std::string& mujoco_error);

// TranslateMjcf, then mj_loadXML on the result. Throws std::runtime_error naming the model and,
// when MuJoCo refuses it, the element and attribute and where they are in the user's files.
struct LoadedMjcf {
  mjModel_* model = nullptr;  // the caller owns it (mj_deleteModel)
  std::vector<JointForceRange> force_ranges;
  std::vector<std::string> translated;
};
LoadedMjcf LoadMjcf(const std::string& path);

}  // namespace robot_edge::sim
