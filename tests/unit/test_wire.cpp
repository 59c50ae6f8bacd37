// grader/remote/include/remote/wire.hpp: what the harness and the runner say to each other
// comes back byte for byte, and a short message is refused, not read past its end.
#include "remote/wire.hpp"

#include "grader/catch.hpp"

#include <cstdint>

namespace {
struct Arguments {  // plain values, as a lab's interface puts them on the wire
  int M, N, K;
  double scale;
  std::uint64_t handle;
};
}  // namespace

TEST_CASE("the wire: values, strings and bytes come back in order", "[wire]") {
  remote::Writer w;
  w.put(Arguments{1024, 512, 3, 0.5, 0xDEADBEEFCAFEULL});
  w.put<std::uint32_t>(7);
  w.put_string("tiled, \"32\"");
  w.put_bytes({1, 2, 3, 255});
  w.put_string("");
  CHECK(w.bytes().size() == sizeof(Arguments) + 4 + (4 + 11) + (4 + 4) + 4);

  remote::Reader r(w.bytes());
  const auto a = r.get<Arguments>();
  CHECK(a.M == 1024);
  CHECK(a.N == 512);
  CHECK(a.K == 3);
  CHECK(a.scale == 0.5);
  CHECK(a.handle == 0xDEADBEEFCAFEULL);
  CHECK(r.get<std::uint32_t>() == 7);
  CHECK(r.get_string() == "tiled, \"32\"");
  CHECK(r.get_bytes() == std::vector<unsigned char>{1, 2, 3, 255});
  CHECK(r.get_string().empty());
  CHECK(r.done());
  CHECK_THROWS_AS(r.get<std::uint32_t>(), std::runtime_error);  // nothing left

  std::vector<unsigned char> cut = w.bytes();
  cut.resize(sizeof(Arguments) - 1);
  remote::Reader short_one(cut);
  CHECK_THROWS_AS(short_one.get<Arguments>(), std::runtime_error);
}
