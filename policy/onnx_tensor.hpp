// Shapes and constant tensors of an ONNX graph: pure helpers, used at load time only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace onnx {
class TensorProto;
}

namespace robot_edge::policy {

using Shape = std::vector<std::int64_t>;

std::size_t NumElements(const Shape& shape);
// "[1, 45]"; "[]" for a scalar.
std::string ToString(const Shape& shape);

// Numpy (multidirectional) broadcasting of two shapes; nullopt when they are incompatible.
// Broadcast({1, 64}, {64}) == {1, 64}; Broadcast({3}, {4}) == nullopt.
std::optional<Shape> Broadcast(const Shape& a, const Shape& b);

// For each element of `out` (row-major), the index of the element of `in` that broadcasts to
// it. `in` must broadcast to `out`.
std::vector<std::uint32_t> BroadcastIndex(const Shape& in, const Shape& out);

// A constant: an initializer or the value of a Constant node.
struct ConstTensor {
  bool is_int = false;  // INT64 (shapes, axes) instead of FLOAT
  Shape shape;
  std::vector<float> floats;       // FLOAT
  std::vector<std::int64_t> ints;  // INT64
};

// Reads a TensorProto's data from raw_data (little-endian) or from its typed field
// (float_data / int64_data). FLOAT and INT64 only. Throws ModelError naming `what` on another
// type, data in an external file, or a size that does not match the shape.
ConstTensor ReadTensor(const onnx::TensorProto& tensor, const std::string& what);

}  // namespace robot_edge::policy
