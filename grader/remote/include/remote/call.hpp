// A call of a lab's function, made in the harness and run in the runner.
//
// A lab lists the functions of its interface header once, in grader/labs/<lab>/remote.cpp:
//
//   WORKBOOK_REMOTE(matmul::naive, (const float* A, const float* B, float* C, int M, int N, int K,
//                                   cudaStream_t stream), (A, B, C, M, N, K, stream))
//
// That file is compiled twice. In the harness (the lab's tests) each line *defines* the function:
// its body sends the call to the runner, so the tests call matmul::naive(...) as if the student's
// code were linked in, and it is not. In the runner (WORKBOOK_RUNNER defined) each line registers
// the student's real function under its name, and the runner's dispatcher calls it.
//
// Arguments travel by their declared types: a device pointer as a CUDA IPC handle of its
// allocation plus an offset (the runner opens the same memory), numbers and plain structs by
// value, and the cudaStream_t as nothing: the runner launches on its own stream; the harness
// finishes its own work on the buffers (on the stream it was given) before it sends the call.
#pragma once

#include "remote/wire.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace remote {

// A pointer argument on the wire.
struct PointerRef {
  std::uint8_t kind = 0;  // 0: null, 1: device memory of the harness
  cudaIpcMemHandle_t handle{};
  std::uint64_t offset = 0;
};
PointerRef share_pointer(const void* pointer);  // harness: throws for memory it cannot share
void* open_pointer(const PointerRef& ref);      // runner: the same memory in this process
cudaStream_t runner_stream();                   // runner: the stream calls are launched on
void note_call_stream(cudaStream_t stream);     // harness: the stream the call is ordered on

// A call that did not complete: the runner reported an error (crashed = false: the runner goes
// on), or its CUDA context was lost, it died or hung (crashed = true: it is restarted).
struct CallFailed : std::runtime_error {
  CallFailed(const std::string& what, bool crashed, bool hung = false)
      : std::runtime_error(what), crashed(crashed), hung(hung) {}
  bool crashed;
  bool hung;  // it did not finish within the call timeout
};

template <class T, class = void>
struct Codec;

template <>
struct Codec<cudaStream_t> {
  static void encode(Writer&, cudaStream_t s) { note_call_stream(s); }
  static cudaStream_t decode(Reader&) { return runner_stream(); }
};

template <class T>
struct Codec<T*, std::enable_if_t<!std::is_same_v<T*, cudaStream_t>>> {
  static void encode(Writer& w, T* p) { w.put(share_pointer(p)); }
  static T* decode(Reader& r) { return static_cast<T*>(open_pointer(r.get<PointerRef>())); }
};

template <class T>
struct Codec<T, std::enable_if_t<std::is_arithmetic_v<T> || std::is_enum_v<T>>> {
  static void encode(Writer& w, T v) { w.put(v); }
  static T decode(Reader& r) { return r.get<T>(); }
};

// A plain struct passed by const reference (kmeans::Params): by value.
template <class T>
struct Codec<const T&, std::enable_if_t<std::is_trivially_copyable_v<T> && std::is_class_v<T>>> {
  static void encode(Writer& w, const T& v) { w.put(v); }
  static T decode(Reader& r) { return r.get<T>(); }
};

template <class F>
struct Signature;
template <class R, class... P>
struct Signature<R (*)(P...)> {
  using Return = R;
  using Params = std::tuple<P...>;
};
template <class F>
using ReturnOf = typename Signature<F>::Return;

// Harness: sends the call and waits for it (throws CallFailed); returns the reply's value bytes.
std::vector<unsigned char> invoke(const char* name, const Writer& arguments);

template <class R, class... P, class... A>
R call_as(R (*)(P...), const char* name, A&&... args) {
  Writer w;
  (Codec<P>::encode(w, static_cast<P>(args)), ...);
  const std::vector<unsigned char> value = invoke(name, w);
  if constexpr (!std::is_void_v<R>) {
    static_assert(std::is_trivially_copyable_v<R>, "a remote function returns void or a plain value");
    Reader r(value);
    return r.get<R>();
  }
}

template <auto F, class... A>
auto call(const char* name, A&&... args) {
  return call_as(F, name, std::forward<A>(args)...);
}

// Runner: decodes the arguments in order (a braced list is evaluated left to right) when the
// call is prepared, before the harness starts its clock, and returns the call itself, which
// appends the function's value to `value` when the clock runs.
template <class T>
using Stored = std::conditional_t<std::is_reference_v<T>, std::decay_t<T>, T>;

using Bound = std::function<void(Writer& value)>;

template <class R, class... P>
Bound bind_as(R (*f)(P...), Reader& r) {
  auto args = std::make_shared<std::tuple<Stored<P>...>>(std::tuple<Stored<P>...>{Codec<P>::decode(r)...});
  if (!r.done()) throw std::runtime_error("malformed call (arguments left over)");
  return [f, args](Writer& value) {
    if constexpr (std::is_void_v<R>) {
      std::apply(f, *args);
    } else {
      value.put(std::apply(f, *args));
    }
  };
}

using Binder = Bound (*)(Reader&);
template <auto F>
Bound bind(Reader& r) {
  return bind_as(F, r);
}

// Runner: a lab's functions by name (registered by remote.cpp's static objects).
struct Registration {
  Registration(const char* name, Binder binder);
};
Binder find(const std::string& name);

}  // namespace remote

#define WORKBOOK_REMOTE_UNPAREN(...) __VA_ARGS__
#define WORKBOOK_REMOTE_CAT2(a, b) a##b
#define WORKBOOK_REMOTE_CAT(a, b) WORKBOOK_REMOTE_CAT2(a, b)
#ifdef WORKBOOK_RUNNER
#define WORKBOOK_REMOTE(fn, params, args) \
  static const ::remote::Registration WORKBOOK_REMOTE_CAT(remote_registration_, __LINE__){#fn, &::remote::bind<&fn>};
#else
#define WORKBOOK_REMOTE(fn, params, args) \
  ::remote::ReturnOf<decltype(&fn)> fn params { return ::remote::call<&fn>(#fn, WORKBOOK_REMOTE_UNPAREN args); }
#endif
