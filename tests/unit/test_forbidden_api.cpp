#include "grader/catch.hpp"
#include "grader/forbidden_api.hpp"

#include <fstream>
#include <sstream>

using namespace grader;

namespace {
// Used only by the tests that read solutions/ (absent in a student release).
[[maybe_unused]] std::string read(const std::string& relative) {
  std::ifstream in(std::string(WORKBOOK_SOURCE_ROOT) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string listing(const std::vector<ApiFinding>& findings) {
  std::string s;
  for (const auto& f : findings) s += to_string(f) + "\n";
  return s;
}

// The one finding of `source`: it must be on `line` and name `what`.
void only_finding(const std::string& source, int line, const std::string& what) {
  const auto findings = find_forbidden_apis("x.cu", source);
  INFO(source);
  INFO(listing(findings));
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].file == "x.cu");
  CHECK(findings[0].line == line);
  CHECK(findings[0].what == what);
  CHECK_FALSE(findings[0].why.empty());
}

bool clean(const std::string& source) {
  const auto findings = find_forbidden_apis("x.cu", source);
  INFO(source);
  INFO(listing(findings));
  return findings.empty();
}

// Three lines of ordinary code, then the line under test (line 4), then more.
std::string at_line_4(const std::string& code) {
  return "#include \"matmul.h\"\n\nvoid naive(const float* A, float* C, cudaStream_t stream) {\n" + code +
         "\n  kernel<<<1, 1, 0, stream>>>(A, C);\n}\n";
}
}  // namespace

TEST_CASE("vendor libraries that compute the result are found, with their line", "[forbidden]") {
  only_finding(at_line_4("  #include <cublas_v2.h>"), 4, "#include <cublas_v2.h>");
  only_finding(at_line_4("#include \"cublas_v2.h\"  // quoted: the name is read from the source"), 4,
               "#include \"cublas_v2.h\"");
  only_finding(at_line_4("# include <cublasLt.h>"), 4, "#include <cublasLt.h>");
  only_finding(at_line_4("#include <cudnn.h>"), 4, "#include <cudnn.h>");
  only_finding(at_line_4("#include <cusparse.h>"), 4, "#include <cusparse.h>");
  only_finding(at_line_4("#include <cufft.h>"), 4, "#include <cufft.h>");
  only_finding(at_line_4("#include <thrust/device_vector.h>"), 4, "#include <thrust/device_vector.h>");
  only_finding(at_line_4("#include <cub/cub.cuh>"), 4, "#include <cub/cub.cuh>");
  only_finding(at_line_4("#include <cutlass/gemm/device/gemm.h>"), 4, "#include <cutlass/gemm/device/gemm.h>");
  only_finding(at_line_4("#include <cute/tensor.hpp>"), 4, "#include <cute/tensor.hpp>");
  only_finding(at_line_4("  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n);"), 4,
               "cublasSgemm");
  only_finding(at_line_4("  cublasGemmEx(h);"), 4, "cublasGemmEx");
  only_finding(at_line_4("  cublasLtMatmul(lt);"), 4, "cublasLtMatmul");
  only_finding(at_line_4("  cufftHandle plan;"), 4, "cufftHandle");
  only_finding(at_line_4("  int op = CUBLAS_OP_T;"), 4, "CUBLAS_OP_T");
  only_finding(at_line_4("  thrust::sort(p, p + n);"), 4, "thrust::");
  only_finding(at_line_4("  using namespace thrust;"), 4, "namespace thrust");
  only_finding(at_line_4("  cub::DeviceReduce::Sum(t, b, in, out, n, stream);"), 4, "cub::");
  only_finding(at_line_4("  cute::Tensor t;"), 4, "cute::");
  // One finding per line and reason, the first thing found for it; two reasons, two findings.
  const auto two =
      find_forbidden_apis("x.cu", at_line_4("  cublasCreate(&h); std::thread t(work); cublasSetStream(h, s);"));
  INFO(listing(two));
  REQUIRE(two.size() == 2);
  CHECK(two[0].what == "cublasCreate");
  CHECK(two[1].what == "std::thread");
}

TEST_CASE("escapes from the timed window and the sandbox are found", "[forbidden]") {
  only_finding(at_line_4("  std::thread t([] {});"), 4, "std::thread");
  only_finding(at_line_4("  auto f = std :: async(work);"), 4, "std::async");
  only_finding(at_line_4("#include <thread>"), 4, "#include <thread>");
  only_finding(at_line_4("#include <future>"), 4, "#include <future>");
  only_finding(at_line_4("  pthread_create(&t, nullptr, work, nullptr);"), 4, "pthread_create");
  only_finding(at_line_4("  if (fork() == 0) work();"), 4, "fork");
  only_finding(at_line_4("  FILE* p = popen(\"nvidia-smi\", \"r\");"), 4, "popen");
  only_finding(at_line_4("  std::system(\"true\");"), 4, "system");
  only_finding(at_line_4("  void* lib = dlopen(\"libcublas.so\", RTLD_NOW);"), 4, "dlopen");
  only_finding(at_line_4("  auto f = dlsym(lib, \"cublasSgemm\");"), 4, "dlsym");
  only_finding(at_line_4("  const char* s = std::getenv(\"WORKBOOK_SEED\");"), 4, "getenv");
  only_finding(at_line_4("  setenv(\"CUDA_LAUNCH_BLOCKING\", \"0\", 1);"), 4, "setenv");
  only_finding(at_line_4("  cudaStream_t own; cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking);"), 4,
               "cudaStreamCreateWithFlags");
  only_finding(at_line_4("  cudaStreamCreate(&own);"), 4, "cudaStreamCreate");
  only_finding(at_line_4("  kernel<<<1, 1, 0, cudaStreamPerThread>>>(A, C);"), 4, "cudaStreamPerThread");
  only_finding(at_line_4("  cudaLaunchHostFunc(stream, work, nullptr);"), 4, "cudaLaunchHostFunc");
  only_finding(at_line_4("  cudaStreamAddCallback(stream, done, nullptr, 0);"), 4, "cudaStreamAddCallback");
  only_finding(at_line_4("#pragma omp parallel for"), 4, "#pragma omp");
  only_finding(at_line_4("  syscall(SYS_fork);"), 4, "syscall");
}

TEST_CASE("the given stream is used, not created: nothing to find", "[forbidden]") {
  CHECK(
      clean("void naive(const float* A, float* C, int n, cudaStream_t stream) {\n"
            "  kernel<<<1, 1, 0, stream>>>(A, C, n);\n"
            "  CUDA_CHECK(cudaMemcpyAsync(C, A, n * sizeof(float), cudaMemcpyDeviceToDevice, stream));\n"
            "  CUDA_CHECK(cudaStreamSynchronize(stream));\n"
            "}\n"));
  // Ordinary words that only look like the forbidden ones.
  CHECK(
      clean("struct Particle { float thrust; float cub; };\n"
            "float f(Particle p) { return p.thrust + p.cub; }\n"
            "int forks = 0; int systems = 0; void my_fork(); double cublas_ms = 0, cufft = 0;\n"
            "__device__ float x = 1.5e+3f; int y = 0x1Fu;\n"));
  CHECK(
      clean("#include \"matmul.h\"\n#include <cuda_runtime.h>\n#include <curand_kernel.h>\n#include <vector>\n"
            "#include \"workbook/cuda_check.hpp\"\n"));
}

TEST_CASE("comments and strings never count", "[forbidden]") {
  CHECK(
      clean("// #include <cublas_v2.h>\n"
            "/* cublasSgemm(h, ...); std::thread t;\n"
            "   #include <thrust/sort.h>\n"
            "   cudaStreamCreate(&s); */\n"
            "const char* why = \"no cublasSgemm, no std::thread, no fork() and no getenv here\";\n"
            "const char* also = \"#include <cublas_v2.h>\";\n"
            "void naive(cudaStream_t stream);  // launches on stream, never cudaStreamCreate\n"));
  // After a block comment, the code on the same line counts again.
  only_finding("/* a\n comment */ cudaStreamCreate(&s);\n", 2, "cudaStreamCreate");
  // A quoted include in a comment after a real include: the real one is read.
  CHECK(clean("#include \"matmul.h\"  // not \"cublas_v2.h\"\n"));
}

TEST_CASE("what the compiler joins or hides is seen too", "[forbidden]") {
  // A backslash-newline splices lines: one name to the compiler, so one name here. The lines
  // after it keep their numbers.
  const auto spliced = find_forbidden_apis("x.cu", "int a;\ncub\\\nlasSgemm(h);\nint b;\ncudaStreamCreate(&s);\n");
  INFO(listing(spliced));
  REQUIRE(spliced.size() == 2);
  CHECK(spliced[0].what == "cublasSgemm");
  CHECK(spliced[0].line == 2);
  CHECK(spliced[1].line == 5);
  // A digit separator is no character literal: the code after it is still code.
  only_finding("const int n = 1'000'000; cublasSgemm(h); const int m = 2'0;\n", 1, "cublasSgemm");
  CHECK(clean("const char c = 'a'; const char16_t d = u'b'; const auto e = u8'c'; int n = 1'024;\n"));
  // Raw strings and includes through a macro would hide code or headers: refused outright.
  // R"(")" ends where the compiler says (and strip_comments_and_strings knows it): the raw string
  // is refused, and the call after it is seen.
  const auto raw = find_forbidden_apis("x.cu", "int a;\nconst char* s = R\"(\")\"; cublasSgemm(h); // \"\n");
  INFO(listing(raw));
  REQUIRE(raw.size() == 2);
  CHECK(raw[0].line == 2);
  CHECK(raw[0].what == "R\"...\"");
  CHECK(raw[1].what == "cublasSgemm");
  only_finding("%:include <cublas_v2.h>\n", 1, "#include <cublas_v2.h>");  // the digraph of #
  only_finding("#define CAT(a, b) a##b\nint x;\n", 1, "##");
  CHECK(clean("#define STR(x) #x\n#  define ONE 1\n"));
  const auto macro = find_forbidden_apis("x.cu", "#define HEADER <vector>\n#include HEADER\n");
  INFO(listing(macro));
  REQUIRE(macro.size() == 1);
  CHECK(macro[0].line == 2);
  CHECK(macro[0].what == "#include HEADER");
}

#ifdef WORKBOOK_HAS_SOLUTIONS  // reads solutions/, which a student release does not have
TEST_CASE("the reference solutions are clean", "[forbidden]") {
  for (const std::string file : {"solutions/matmul-tiled/matmul.cu", "labs/matmul-tiled/matmul.cu"}) {
    const std::string source = read(file);
    INFO(file);
    REQUIRE_FALSE(source.empty());
    const auto findings = find_forbidden_apis(file, source);
    INFO(listing(findings));
    CHECK(findings.empty());
  }
}
#endif

TEST_CASE("a finding reads like a compiler diagnostic", "[forbidden]") {
  const auto findings = find_forbidden_apis("matmul.cu", "\n\n#include <thrust/sort.h>\n");
  REQUIRE(findings.size() == 1);
  CHECK(to_string(findings[0]).rfind("matmul.cu:3: #include <thrust/sort.h>: Thrust computes the result", 0) == 0);
}
