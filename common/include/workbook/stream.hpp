// Stream: a CUDA stream that destroys itself. The grader launches student code on a stream of
// its own (not the legacy default stream) and times with events recorded on that stream.
#pragma once

#include "workbook/cuda_check.hpp"

namespace workbook {

class Stream {
public:
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  operator cudaStream_t() const { return stream_; }
  void synchronize() const { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace workbook
