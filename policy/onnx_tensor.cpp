#include "policy/onnx_tensor.hpp"

#include <onnx/onnx_pb.h>

#include <bit>
#include <cstring>

#include "policy/runtime.hpp"

namespace robot_edge::policy {

static_assert(std::endian::native == std::endian::little,
              "raw_data is little-endian: this reader copies it as is");

std::size_t NumElements(const Shape& shape) {
  std::size_t n = 1;
  for (std::int64_t d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

std::string ToString(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    s += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
  }
  return s + "]";
}

std::optional<Shape> Broadcast(const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<std::uint32_t> BroadcastIndex(const Shape& in, const Shape& out) {
  const std::size_t rank = out.size();
  // Strides of `in` aligned to `out`'s axes; 0 on broadcast axes.
  std::vector<std::size_t> stride(rank, 0);
  std::size_t s = 1;
  for (std::size_t k = 0; k < in.size(); ++k) {
    const std::size_t axis_in = in.size() - 1 - k;
    const std::size_t axis_out = rank - 1 - k;
    stride[axis_out] = in[axis_in] == 1 ? 0 : s;
    s *= static_cast<std::size_t>(in[axis_in]);
  }
  std::vector<std::uint32_t> index(NumElements(out));
  std::vector<std::int64_t> at(rank, 0);
  for (std::size_t i = 0; i < index.size(); ++i) {
    std::size_t offset = 0;
    for (std::size_t axis = 0; axis < rank; ++axis)
      offset += static_cast<std::size_t>(at[axis]) * stride[axis];
    index[i] = static_cast<std::uint32_t>(offset);
    for (std::size_t axis = rank; axis-- > 0;) {  // next multi-index, last axis fastest
      if (++at[axis] < out[axis]) break;
      at[axis] = 0;
    }
  }
  return index;
}

ConstTensor ReadTensor(const onnx::TensorProto& t, const std::string& what) {
  ConstTensor c;
  for (std::int64_t d : t.dims()) {
    if (d <= 0) throw ModelError(what + ": dimension " + std::to_string(d) + " in its shape");
    c.shape.push_back(d);
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL || t.external_data_size() > 0) {
    throw ModelError(what + ": its data is in an external file; export the model as one file");
  }
  if (t.has_segment()) throw ModelError(what + ": segmented tensors are not supported");
  const std::size_t n = NumElements(c.shape);
  const auto check_count = [&](std::size_t got) {
    if (got != n) {
      throw ModelError(what + ": " + std::to_string(got) + " values for shape " +
                       ToString(c.shape) + " (" + std::to_string(n) + ")");
    }
  };
  const bool raw = t.has_raw_data();
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      c.floats.resize(n);
      if (raw) {
        check_count(t.raw_data().size() / sizeof(float));
        if (t.raw_data().size() % sizeof(float) != 0) check_count(n + 1);
        std::memcpy(c.floats.data(), t.raw_data().data(), n * sizeof(float));
      } else {
        check_count(static_cast<std::size_t>(t.float_data_size()));
        std::copy(t.float_data().begin(), t.float_data().end(), c.floats.begin());
      }
      break;
    case onnx::TensorProto::INT64:
      c.is_int = true;
      c.ints.resize(n);
      if (raw) {
        check_count(t.raw_data().size() / sizeof(std::int64_t));
        if (t.raw_data().size() % sizeof(std::int64_t) != 0) check_count(n + 1);
        std::memcpy(c.ints.data(), t.raw_data().data(), n * sizeof(std::int64_t));
      } else {
        check_count(static_cast<std::size_t>(t.int64_data_size()));
        std::copy(t.int64_data().begin(), t.int64_data().end(), c.ints.begin());
      }
      break;
    default:
      throw ModelError(what + ": element type " +
                       onnx::TensorProto::DataType_Name(
                           static_cast<onnx::TensorProto::DataType>(t.data_type())) +
                       " is not supported (FLOAT, and INT64 for shapes and axes)");
  }
  return c;
}

}  // namespace robot_edge::policy
