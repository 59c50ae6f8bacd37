// fast-cpp-csv-parser (Debian's libfccp-dev, or the fetched copy), as the grader reads the CSVs
// an instructor gives it (a roster, submission times): on this thread, no warnings of its own.
#pragma once

#include <limits>  // the header uses std::numeric_limits without including it

#define CSV_IO_NO_THREAD  // these files are small: read them on this thread
// Debian 12's copy of the header copies a file name with strncpy, which GCC flags when inlined
// (fixed upstream in 2025, the fetched copy): not ours to change.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop
