// What a student release leaves out (grader/src/release/release.hpp).
#include "grader/catch.hpp"
#include "release/release.hpp"

TEST_CASE("release-exclude patterns: folders, globs, and files under an excluded folder", "[release]") {
  const std::vector<std::string> patterns = {"solutions/", "docs/measurements/*.cu", "tests/attacks",
                                             "grader/labs/granularity/tiled_reference.cu"};
  CHECK(grader::excluded("solutions/matmul-tiled/matmul.cu", patterns));
  CHECK(grader::excluded("docs/measurements/kmeans-privatization-experiment.cu", patterns));
  CHECK_FALSE(grader::excluded("docs/measurements/kmeans-bench.txt", patterns));
  CHECK_FALSE(grader::excluded("docs/measurements/sub/x.cu", patterns));            // * does not cross /
  CHECK(grader::excluded("tests/attacks/fixtures/forge-results.cu.in", patterns));  // a folder named without /
  CHECK(grader::excluded("grader/labs/granularity/tiled_reference.cu", patterns));
  CHECK_FALSE(grader::excluded("grader/labs/granularity/tiled_reference.hpp", patterns));
  CHECK_FALSE(grader::excluded("labs/matmul-tiled/matmul.cu", patterns));
  CHECK_FALSE(grader::excluded("solutions.md", patterns));
}
