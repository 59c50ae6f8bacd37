// The CPU reference (reference.cpp) replayed on the GPU, one thread per cell: the same float
// operations in the same order, each correctly rounded, so the same bits (device_reference.hpp
// says why float and not double).
//
// Why the bits agree. Per cell, reference.cpp's add_particle computes, for each particle in file
// order (built with -ffp-contract=off: no fused multiply-add; SSE/AVX sqrtps and divps: IEEE 754
// single precision, round to nearest even, denormals kept):
//   energy          = (float)value * 1000              one float multiply (ref_update)
//   energy_per_size = energy / (float)layer_size       one float division
//   energy_k        = energy_per_size / sqrtf((float)distance)
//   if (energy_k >= threshold || energy_k <= -threshold) layer[k] = layer[k] + energy_k
// and relax_array: layer[k] = ((left + here) + right) / 3 from the layer before the relaxation.
// Here each of those operations is the CUDA intrinsic that is the same IEEE operation with the
// same rounding, whatever nvcc's flags (__fmul_rn, __fdiv_rn, __fsqrt_rn, __fadd_rn: correctly
// rounded, never contracted into an FMA, no approximate division or square root, denormals kept
// as nvcc does without -ftz=true, which this project never sets); int to float conversions round
// to nearest on both sides. IEEE 754 requires each of these to return the one correctly rounded
// result, so equal inputs in equal order give equal bits: the cells are independent, so a thread
// per cell loses nothing of the order, which is per cell. Nothing is summed across cells.
//
// The magnitude (the per-cell sum of |term| that tolerance() scales with) takes |energy_k| where
// the value takes energy_k: reference.cpp computes it as add_particle with |energy|, and with
// round-to-nearest division, fl(|a| / b) = |fl(a / b)| for b > 0, so its terms are exactly the
// |energy_k| here, and the threshold test, symmetric, adds them in the same cells.
//
// Written plainly, for clarity rather than speed (it runs untimed, between the timed calls):
// every thread reads every particle from global memory (the same address across a warp, a
// broadcast), no shared memory, no tricks.
#include "device_reference.hpp"
#include "generator.hpp"

#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/stream.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <utility>

namespace storm_grading {
namespace {

constexpr int kBlock = 256;

unsigned blocks(int n) { return static_cast<unsigned>((static_cast<long long>(n) + kBlock - 1) / kBlock); }

// Step 1 for cell k: every particle, in file order, exactly as reference.cpp's add_particle.
// magnitude may be null (no negative term yet: the magnitude would equal the value).
__global__ void update_kernel(float* value, float* magnitude, int layer_size, const int* posval, int num_particles,
                              float threshold) {
  const long long index = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= layer_size) return;
  const int k = static_cast<int>(index);
  const float size = static_cast<float>(layer_size);  // as `energy / layer_size` converts it
  float v = value[k];
  float m = magnitude ? magnitude[k] : 0.0f;
  for (int j = 0; j < num_particles; ++j) {
    const int position = posval[2 * j];
    const float energy = __fmul_rn(static_cast<float>(posval[2 * j + 1]), 1000.0f);
    const float energy_per_size = __fdiv_rn(energy, size);
    // Positions are within +-10^9 and layers at most 10^9 cells (storm_file.cpp), so this int
    // arithmetic does not overflow, as in reference.cpp.
    int distance = position - k;
    distance = distance < 0 ? -distance : distance;
    distance = distance + 1;
    const float energy_k = __fdiv_rn(energy_per_size, __fsqrt_rn(static_cast<float>(distance)));
    if (energy_k >= threshold || energy_k <= -threshold) {
      v = __fadd_rn(v, energy_k);
      m = __fadd_rn(m, fabsf(energy_k));
    }
  }
  value[k] = v;
  if (magnitude) magnitude[k] = m;
}

// Step 2 from `in` into `out`: the three-point average of the layer before the relaxation, the
// end cells copied, as reference.cpp's relax_array (which does it in place, keeping the old
// left neighbour: the same values).
__global__ void relax_kernel(const float* in, float* out, int layer_size) {
  const long long index = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= layer_size) return;
  const int k = static_cast<int>(index);
  if (k == 0 || k == layer_size - 1) {
    out[k] = in[k];
  } else {
    out[k] = __fdiv_rn(__fadd_rn(__fadd_rn(in[k - 1], in[k]), in[k + 1]), 3.0f);
  }
}

// A RefLayer held on the device between storms: the value, and the magnitude once a negative
// term has come (RefLayer's rule), each with a second array to relax into.
class DeviceLayer {
public:
  explicit DeviceLayer(const RefLayer& host)
      : n_(host.size()), value_(host.value), scratch_(n_), particles_(host.particles), storms_(host.storms) {
    if (!host.magnitude.empty()) start_magnitude(&host.magnitude);
  }

  // ref_update's step: the particles of one storm (host memory).
  void update(const int* posval, int num_particles) {
    bool negative = false;
    for (int j = 0; j < num_particles; ++j) negative |= posval[2 * j + 1] < 0;
    if (negative && !tracking_) start_magnitude(nullptr);  // all terms so far were >= 0
    if (num_particles > 0) {
      workbook::DeviceBuffer<int> particles(2 * static_cast<std::size_t>(num_particles));
      CUDA_CHECK(cudaMemcpyAsync(particles.data(), posval, particles.bytes(), cudaMemcpyHostToDevice, stream_));
      const float threshold = storm::THRESHOLD / n_;  // as add_particle computes it (host float division)
      CUDA_CHECK_LAUNCH(update_kernel<<<blocks(n_), kBlock, 0, stream_>>>(
          value_.data(), tracking_ ? magnitude_.data() : nullptr, n_, particles.data(), num_particles, threshold));
      stream_.synchronize();  // before `particles` is freed
    }
    particles_ += num_particles;
  }

  // ref_relax's step.
  void relax() {
    relax_array(value_, scratch_);
    if (tracking_) relax_array(magnitude_, magnitude_scratch_);
    ++storms_;
  }

  // The layer as a RefLayer on the host.
  void download(RefLayer& host) {
    host.value.resize(n_);
    CUDA_CHECK(cudaMemcpyAsync(host.value.data(), value_.data(), value_.bytes(), cudaMemcpyDeviceToHost, stream_));
    host.magnitude.resize(tracking_ ? n_ : 0);
    if (tracking_)
      CUDA_CHECK(cudaMemcpyAsync(host.magnitude.data(), magnitude_.data(), magnitude_.bytes(), cudaMemcpyDeviceToHost,
                                 stream_));
    stream_.synchronize();
    host.particles = particles_;
    host.storms = storms_;
  }

private:
  // The magnitude from now on: from `initial`, or (no negative term so far) equal to the value.
  void start_magnitude(const std::vector<float>* initial) {
    magnitude_ = workbook::DeviceBuffer<float>(n_);
    magnitude_scratch_ = workbook::DeviceBuffer<float>(n_);
    if (initial) {
      CUDA_CHECK(
          cudaMemcpyAsync(magnitude_.data(), initial->data(), magnitude_.bytes(), cudaMemcpyHostToDevice, stream_));
    } else {
      CUDA_CHECK(
          cudaMemcpyAsync(magnitude_.data(), value_.data(), magnitude_.bytes(), cudaMemcpyDeviceToDevice, stream_));
    }
    tracking_ = true;
  }

  void relax_array(workbook::DeviceBuffer<float>& layer, workbook::DeviceBuffer<float>& scratch) {
    if (n_ < 3) return;  // relax_array leaves layers of fewer than 3 cells as they are
    CUDA_CHECK_LAUNCH(relax_kernel<<<blocks(n_), kBlock, 0, stream_>>>(layer.data(), scratch.data(), n_));
    std::swap(layer, scratch);  // the relaxed layer is the layer now
  }

  int n_;
  workbook::Stream stream_;
  workbook::DeviceBuffer<float> value_, scratch_;  // value_ is uploaded (DeviceBuffer's upload: complete)
  workbook::DeviceBuffer<float> magnitude_, magnitude_scratch_;
  bool tracking_ = false;
  long long particles_ = 0;
  int storms_ = 0;
};

}  // namespace

void ref_update_device(RefLayer& layer, const int* posval, int num_particles) {
  if (layer.size() < 1) return ref_update(layer, posval, num_particles);
  DeviceLayer d(layer);
  d.update(posval, num_particles);
  d.download(layer);
}

std::vector<storm::Result> ref_simulate_device(int layer_size, const std::vector<storm::Storm>& storms,
                                               std::vector<RefLayer>* layers) {
  if (layer_size < 1) return ref_simulate(layer_size, storms, layers);
  DeviceLayer d{RefLayer(layer_size)};
  RefLayer host;
  std::vector<storm::Result> results;
  if (layers) layers->clear();
  for (const auto& s : storms) {
    d.update(s.posval.data(), s.size());
    d.relax();
    d.download(host);
    results.push_back(ref_maximum(host.value));
    if (layers) layers->push_back(host);
  }
  return results;
}

namespace {

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_layer(const RefLayer& a, const RefLayer& b) {
  if (a.value.size() != b.value.size() || a.magnitude.size() != b.magnitude.size() || a.particles != b.particles ||
      a.storms != b.storms)
    return false;
  for (std::size_t k = 0; k < a.value.size(); ++k)
    if (!same_bits(a.value[k], b.value[k])) return false;
  for (std::size_t k = 0; k < a.magnitude.size(); ++k)
    if (!same_bits(a.magnitude[k], b.magnitude[k])) return false;
  return true;
}

// Two storms on `layer_size` cells: energies of both signs, positions up to 200 cells off either end.
std::vector<storm::Storm> self_check_storms(int layer_size) {
  return generate_storms(storm_shape(layer_size, 2, 300, -200, layer_size + 199, -1000, 1000), 20261127);
}

}  // namespace

bool device_reference_agrees() {
  static const bool agrees = [] {
    const int n = 4099;
    const auto storms = self_check_storms(n);
    std::vector<RefLayer> cpu_layers, gpu_layers;
    const auto cpu = ref_simulate(n, storms, &cpu_layers);
    const auto gpu = ref_simulate_device(n, storms, &gpu_layers);
    bool same = cpu.size() == gpu.size() && cpu_layers.size() == gpu_layers.size();
    for (std::size_t i = 0; same && i < cpu.size(); ++i)
      same = cpu[i].position == gpu[i].position && same_bits(cpu[i].value, gpu[i].value) &&
             same_layer(cpu_layers[i], gpu_layers[i]);
    if (!same)
      std::cerr << "warning: particle-storm's device reference disagrees with the CPU reference on its self-check; "
                   "the CPU reference judges the timed rounds (slower). Please report this with the GPU's name.\n";
    return same;
  }();
  return agrees;
}

bool device_reference_pays(double cells, double particles) {
  return cells * particles >= kDeviceReferenceWork && device_reference_agrees();
}

bool device_reference_pays(int layer_size, const std::vector<storm::Storm>& storms) {
  double particles = 0;
  for (const auto& s : storms) particles += s.size();
  return device_reference_pays(double(layer_size), particles);
}

std::vector<storm::Result> ref_simulate_best(int layer_size, const std::vector<storm::Storm>& storms,
                                             std::vector<RefLayer>* layers) {
  return device_reference_pays(layer_size, storms) ? ref_simulate_device(layer_size, storms, layers)
                                                   : ref_simulate(layer_size, storms, layers);
}

}  // namespace storm_grading
