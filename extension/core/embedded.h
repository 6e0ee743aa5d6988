// embedded.h — data files compiled into the binary (cmake/EmbedData.cmake).
#pragma once

#include <string_view>

namespace scribe {

// Bytes of an embedded file by its repository-relative path ("corpus/rules/units.tsv");
// empty when no such file was embedded.
std::string_view embedded_file(std::string_view relative_path);

}  // namespace scribe
