// The wire envelope of the bytes the engine ships between its own processes (driver and Ray
// workers): commit messages, splits and row-id indexes. They are never stored in a table.
//
// Layout, every integer little-endian whatever the host:
//
//   offset 0   4 bytes   magic: which kind of payload ("PRCM", "PRSP", "PRIX")
//   offset 4   2 bytes   envelope version (kEnvelopeVersion)
//   offset 6   2 bytes   payload version (the kind's own, e.g. a new header key)
//   offset 8   4 bytes   header length H
//   offset 12  H bytes   header: UTF-8 JSON with the payload's small fields
//   12 + H     rest      body: the payload's bulk (an Avro manifest, nested envelopes, ...)
//
// Readers accept exactly their own magic and versions: a mismatch is a clear Invalid
// naming what was found, never a misparse (a driver and its workers run one build).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

inline constexpr uint16_t kEnvelopeVersion = 1;
inline constexpr size_t kEnvelopePrefixSize = 12;

/// One payload kind: its magic, version and the name used in error messages.
struct EnvelopeKind {
  char magic[4];
  uint16_t version;
  const char* what;  // e.g. "commit message"
};

/// The parts of an envelope; views into the bytes given to OpenEnvelope.
struct EnvelopeParts {
  std::string_view header;
  std::string_view body;
};

/// magic + versions + header length + header + body.
std::string SealEnvelope(const EnvelopeKind& kind, std::string_view header, std::string_view body);

/// Splits `bytes` sealed for `kind`. Invalid with a message naming `kind.what`:
/// "not a serialized <what>" (too short for the prefix, or another magic), "serialized <what>
/// has envelope version v (expected 1)" / "... payload version v (expected n)", "serialized
/// <what> is truncated" (the header runs past the end).
Result<EnvelopeParts> OpenEnvelope(const EnvelopeKind& kind, std::string_view bytes);

/// Lower-case hex, two digits per byte.
std::string ToHex(std::string_view bytes);
/// The inverse (either case); Invalid for an odd length or a non-hex digit.
Result<std::string> FromHex(std::string_view hex);

}  // namespace paimon_rowid
