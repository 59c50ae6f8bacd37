#include "grader/catch.hpp"
#include "grader/include_check.hpp"
#include "grader/lab_config.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace grader;
namespace fs = std::filesystem;

namespace {

const fs::path root = WORKBOOK_SOURCE_ROOT;

// Used only by the tests that read solutions/ (absent in a student release).
[[maybe_unused]] std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// matmul-tiled's list, as `grader batch` builds it.
std::vector<std::string> matmul_allowed() {
  return lab_allowed_includes(root / "labs" / "matmul-tiled", {"matmul.cu"}, root / "common" / "include");
}

std::vector<IncludeViolation> check(const std::string& source) {
  return check_includes(source, "matmul.cu", matmul_allowed());
}

// The single violation of `source`: its rule and line.
void refused(const std::string& source, const std::string& rule, int line) {
  INFO(source);
  const auto v = check(source);
  INFO(format_violations(v));
  REQUIRE(v.size() == 1);
  CHECK(v[0].rule == rule);
  CHECK(v[0].line == line);
  CHECK(v[0].file == "matmul.cu");
  CHECK_FALSE(v[0].message.empty());
}

}  // namespace

TEST_CASE("include check: the allowed list is the lab's headers, its files and common/'s", "[include_check]") {
  const auto allowed = matmul_allowed();
  const auto has = [&](const std::string& name) {
    return std::find(allowed.begin(), allowed.end(), name) != allowed.end();
  };
  CHECK(has("matmul.h"));
  CHECK(has("matmul.cu"));
  CHECK(has("workbook/cuda_check.hpp"));
  CHECK(has("workbook/device_buffer.hpp"));
  CHECK_FALSE(has("lab.toml"));
  CHECK_FALSE(has("README.md"));
}

TEST_CASE("include check: the reference by absolute path, or by a path that climbs out", "[include_check]") {
  const std::string solution = (root / "solutions" / "matmul-tiled" / "matmul.cu").string();
  refused("#include \"" + solution + "\"\n", "absolute-path", 1);
  refused("// mine\n\n#include \"../../solutions/matmul-tiled/matmul.cu\"\n", "climbing-path", 3);
  refused("#include <" + solution + ">\n", "absolute-path", 1);  // <...> too
  refused("#include <workbook/../../../solutions/matmul-tiled/matmul.cu>\n", "climbing-path", 1);
  refused("#include \"sub\\\\..\\\\x.h\"\n", "climbing-path", 1);
  refused("#include \"workbook\\\\cuda_check.hpp\"\n", "backslash-path", 1);

  const auto v = check("#include \"/work/solutions/matmul-tiled/matmul.cu\"\n");
  REQUIRE(v.size() == 1);
  const std::string text = format_violation(v[0]);
  CHECK(text.rfind("matmul.cu:1: #include of an absolute path (/work/solutions/matmul-tiled/matmul.cu)", 0) == 0);
  CHECK(text.find("matmul.h") != std::string::npos);  // what may be included instead
  CHECK(text.find("(rule: absolute-path)") != std::string::npos);
}

TEST_CASE("include check: computed includes, #include_next, #import", "[include_check]") {
  refused("#define P \"/etc/passwd\"\n#include P\n", "computed-include", 2);
  refused("#define STR(x) #x\n#include STR(/etc/passwd)\n", "computed-include", 2);
  refused("#include\n", "computed-include", 1);
  refused("#include_next <cstdio>\n", "include-next", 1);
  refused("#import \"/abs/x.h\"\n", "absolute-path", 1);
  // #include_next with a bad path: both rules.
  const auto v = check("#include_next \"/abs/x.h\"\n");
  REQUIRE(v.size() == 2);
  CHECK(v[0].rule == "include-next");
  CHECK(v[1].rule == "absolute-path");
}

TEST_CASE("include check: read as the preprocessor reads it", "[include_check]") {
  refused("int a;\n#inc\\\nlude \"/x\"\n", "absolute-path", 2);  // a spliced directive, at its # line
  refused("#inc\\   \nlude \"/x\"\n", "absolute-path", 1);       // blanks before the newline: still one
  refused("#include \\\n\"/x\"\n", "absolute-path", 1);
  refused("#include /* a\n comment */ \"/x\"\n", "absolute-path", 1);  // a comment is a blank
  refused("  /* c */ # /* c */ include \"/x\"\n", "absolute-path", 1);
  refused("%:include \"/x\"\n", "absolute-path", 1);               // the digraph of #
  refused("// a comment\r#include \"/x\"\n", "absolute-path", 2);  // a lone CR ends a line for GCC
  refused("\xEF\xBB\xBF#include \"/x\"\n", "absolute-path", 1);    // after a byte-order mark
  refused("#include \"/x\" // \"matmul.h\"\n", "absolute-path", 1);
  refused("int x = 1'000;\n#include \"/x\"\n", "absolute-path", 2);              // a digit separator is no quote
  refused("auto s = R\"d(\n)\"\n)d\";\n#include \"/x\"\n", "absolute-path", 4);  // a raw string ends at )d"
  refused("?\?=include \"z.h\"\n", "trigraph", 1);
  // Continued comments hide a line from the compiler, and so from the check.
  CHECK(check("// a comment \\\n#include \"/x\"\nint b;\n").empty());
  CHECK(check("/* #include \"/x\"\n#include \"/y\" */\n").empty());
}

TEST_CASE("include check: #embed, __has_include, pragmas, asm, #line", "[include_check]") {
  refused("static const char data[] = {\n#embed \"/etc/passwd\"\n};\n", "embed", 2);
  refused("#if __has_embed(\"x.bin\")\n#endif\n", "embed", 1);
  refused("#if __has_include(\"/abs\")\n#endif\n", "absolute-path", 1);
  refused("#if __has_include_next(<../x.h>)\n#endif\n", "climbing-path", 1);
  refused("#define H \"/abs\"\n#if __has_include(H)\n#endif\n", "computed-include", 2);
  refused("#pragma GCC dependency \"/work/solutions/matmul-tiled/matmul.cu\"\n", "file-pragma", 1);
  refused("#pragma include_alias(\"matmul.h\", \"/etc/passwd\")\n", "file-pragma", 1);
  refused("_Pragma(\"GCC dependency \\\"/x\\\"\")\n", "file-pragma", 1);
  refused("#define P(x) _Pragma(#x)\n", "computed-pragma", 1);
  refused("void f() { asm(\".incbin \\\"/work/solutions/matmul-tiled/matmul.cu\\\"\"); }\n", "asm-file", 1);
  refused("void f() {\n  __asm__(\".section .rodata\\n\"\n          \".INCLUDE \\\"x.s\\\"\");\n}\n", "asm-file", 2);
  refused("void f() { asm(\".inc\" \"bin \\\"/x\\\"\"); }\n", "asm-file", 1);  // joined as the compiler joins
  refused("void f() { asm(\"\\x2eincbin \\\"/x\\\"\"); }\n", "asm-file", 1);   // escapes decoded
  refused("#define S(x) #x\nvoid f() { asm(S(.incbin \"/x\")); }\n", "asm-file", 2);
  refused("#line 1 \"x.cu\"\n", "line-file", 1);
  refused("#define F \"x.cu\"\n#line 7 F\n", "line-file", 2);
  refused("# 1 \"matmul.h\"\n", "line-file", 1);
  // Each found on its own line, in order.
  const auto v = check("#include \"/a\"\n#embed \"b\"\n#line 3 \"c\"\n");
  REQUIRE(v.size() == 3);
  CHECK(v[0].line == 1);
  CHECK(v[1].line == 2);
  CHECK(v[2].line == 3);
  CHECK(format_violations(v, 2).find("... and 1 more") != std::string::npos);
}

TEST_CASE("include check: a quoted include names the lab's headers, the submission's files or common/'s",
          "[include_check]") {
  refused("#include \"helper.h\"\n", "unlisted-header", 1);
  refused("#include \"matmul-tiled/matmul.cu\"\n", "unlisted-header", 1);
  refused("#include \"workbook/secret.hpp\"\n", "unlisted-header", 1);
  CHECK(check("#include \"matmul.h\"\n#include \"workbook/cuda_check.hpp\"\n#include \"matmul.cu\"\n").empty());
}

TEST_CASE("include check: honest code passes", "[include_check]") {
  const std::string honest = R"src(// #include "/etc/passwd" in a comment, and #pragma GCC dependency "x"
/* #include "../../solutions/matmul-tiled/matmul.cu"
   .incbin "/etc/passwd" */
#include <cuda_runtime.h>
#include "matmul.h"
#include <cstdio>
#include "workbook/cuda_check.hpp"
#pragma once
#line 42
#if defined(__has_include) && __has_include(<cuda_fp16.h>)
#include <cuda_fp16.h>
#endif
#define UNROLL _Pragma("unroll")
const char* s = "#include \"/etc/passwd\"";
const char c = '"';
auto raw = R"x(
#include "/etc/passwd"
)x";
int million = 1'000'000;
__global__ void k(float* p) {
#pragma unroll
  for (int i = 0; i < 4; ++i) p[i] = i < 2 ? 1.0f : 2.0f;
  asm volatile("membar.gl;");
}
)src";
  const auto v = check(honest);
  INFO(format_violations(v));
  CHECK(v.empty());
}

#ifdef WORKBOOK_HAS_SOLUTIONS  // reads solutions/, which a student release does not have
TEST_CASE("include check: every reference solution and starter passes with its lab's headers", "[include_check]") {
  int files = 0;
  for (const auto& lab_dir : fs::directory_iterator(root / "labs")) {
    if (!fs::exists(lab_dir.path() / "lab.toml")) continue;
    const std::string lab = lab_dir.path().filename().string();
    const LabConfig config = LabConfig::load(lab_dir.path() / "lab.toml");
    const auto allowed = lab_allowed_includes(lab_dir.path(), config.files(), root / "common" / "include");
    for (const auto& dir : {root / "solutions" / lab, lab_dir.path()}) {
      INFO(dir.string());
      const auto v = check_include_folder(dir, config.files(), allowed);
      INFO(format_violations(v));
      CHECK(v.empty());
    }
    // And every .cu in solutions/<lab>/, read from disk, one by one.
    for (const auto& f : fs::directory_iterator(root / "solutions" / lab)) {
      if (f.path().extension() != ".cu") continue;
      INFO(f.path().string());
      const auto v = check_includes(read(f.path()), f.path().filename().string(), allowed);
      INFO(format_violations(v));
      CHECK(v.empty());
      ++files;
    }
  }
  CHECK(files >= 5);
  CHECK(check_includes(read(root / "solutions" / "matmul-tiled" / "matmul.cu"), "matmul.cu", matmul_allowed()).empty());
}
#endif
