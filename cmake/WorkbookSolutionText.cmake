# workbook_solution_text(<file> <var>): a reference solution's text without its starter markers
# (grader/src/release/starter.hpp): the BEGIN SOLUTION / STARTER / END SOLUTION lines and the
# starter's "//|" lines removed, so that scripts that edit the reference (the tests' fixtures)
# see the code as it reads without them.
function(workbook_solution_text file var)
  file(READ ${file} text)
  set(text "\n${text}")  # every line, the first one too, follows a newline
  string(REGEX REPLACE "\n[ \t]*//\\|[^\n]*" "" text "${text}")
  string(REGEX REPLACE "\n[ \t]*// (BEGIN SOLUTION[^\n]*|STARTER|END SOLUTION)" "" text "${text}")
  string(SUBSTRING "${text}" 1 -1 text)
  set(${var} "${text}" PARENT_SCOPE)
endfunction()
