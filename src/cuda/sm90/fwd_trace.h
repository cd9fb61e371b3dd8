// Measurement builds only (-DAMKL_SM90_TRACE; bench/trace_tiles.py): clock stamps of the
// forward kernel's phases, per CTA and role (the producer thread, and the first thread of each
// consumer warpgroup), written to a device buffer, so that a timeline shows when each
// warpgroup issues, waits and finishes. In every other build the stamps compile to nothing
// and FwdArgs has no trace field.
//
// Buffer layout: uint64 words, kEventsPerRole per (CTA, role), role 0 = the producer's K
// loading thread, 1 to 3 = consumer warpgroups 0 to 2, 4 and 5 = the producer's V and Q
// loading threads. A word is clock64's low 40 bits | event << 40 | argument << 48 (the
// argument: a key block index or a tile's block count, 16 bits). Zero words are unused.
#pragma once

#include <cstdint>
#include <cstdlib>

namespace amkl::cuda::sm90 {

enum class TraceEvent : uint32_t {
  TileStart = 1,   // consumer: the tile's info is in (arg: key blocks of the tile)
  IssueBegin = 2,  // consumer: turn barrier passed, about to issue WGMMAs (arg: key block)
  IssueEnd = 3,    // consumer: WGMMAs issued, turn passed on (arg: key block)
  SReady = 4,      // consumer: S of the block is in registers (arg: key block)
  ActDone = 5,     // consumer: score policy applied (arg: key block)
  PvReady = 6,     // consumer: the previous P V has completed (arg: key block)
  EpilogueBegin = 7,
  EpilogueEnd = 8,
  Fetched = 9,     // each loader: it took a posted tile from the mailbox (arg: its key blocks)
  LoadK = 10,      // K loader: K stage acquired and its TMA issued (arg: key block)
  LoadV = 11,      // V loader: V stage acquired and its TMA issued (arg: key block)
  LoadQ = 12,      // Q loader: Q stage acquired and its TMA issued
  OScaled = 13,    // consumer: epilogue factors and LSE done (staged O: stmatrix issued too)
  OStaged = 14,    // consumer: O written into the Q stage (stmatrix) and fenced
  OStoreIssued = 15,  // consumer: the warpgroup's rows are staged, the TMA store is issued
  QReady = 16,     // consumer: at a tile's end, the next tile's Q has landed (before the turn
                   // barrier; arg: whether there is a next tile with keys)
  KReady = 17,     // consumer: at a tile's end, the next tile's first K has landed (arg: as
                   // QReady's)
};

constexpr int kTraceEventsPerRole = 8192;
constexpr int kTraceRoles = 6;  // three loading threads and up to three consumer warpgroups
constexpr int kTraceRoleLoadV = 4;  // the V loading thread's role (role 0: K's)
constexpr int kTraceRoleLoadQ = 5;  // the Q loading thread's role

#if defined(AMKL_SM90_TRACE)
/// One role's stamps in this CTA; a no-op where the buffer is null or the slice is full.
struct TraceRecorder {
  uint64_t* slice = nullptr;
  int count = 0;

  __device__ __forceinline__ TraceRecorder(uint64_t* buffer, int role, bool active) {
    if (buffer != nullptr && active) {
      slice = buffer + (int64_t(blockIdx.x) * kTraceRoles + role) * kTraceEventsPerRole;
    }
  }
  __device__ __forceinline__ void stamp(TraceEvent e, int arg) {
    if (slice == nullptr || count >= kTraceEventsPerRole) return;
    const uint64_t t = uint64_t(clock64()) & ((uint64_t(1) << 40) - 1);
    slice[count++] = t | (uint64_t(e) << 40) | (uint64_t(uint32_t(arg) & 0xffffu) << 48);
  }
};
/// Host: the buffer of this launch, the device address in the environment variable
/// AMKL_SM90_TRACE_BUFFER (hex; bench/trace_tiles.py allocates it for one CTA per SM and sets
/// it), or null when the variable is unset.
inline uint64_t* trace_buffer_from_env() {
  const char* s = std::getenv("AMKL_SM90_TRACE_BUFFER");
  return s ? reinterpret_cast<uint64_t*>(std::strtoull(s, nullptr, 16)) : nullptr;
}

#define AMKL_SM90_STAMP_INIT(BUFFER, ROLE, ACTIVE) TraceRecorder trace_rec(BUFFER, ROLE, ACTIVE)
#define AMKL_SM90_STAMP(EVENT, ARG) trace_rec.stamp(TraceEvent::EVENT, int(ARG))
#else
#define AMKL_SM90_STAMP_INIT(BUFFER, ROLE, ACTIVE) ((void)0)
#define AMKL_SM90_STAMP(EVENT, ARG) ((void)0)
#endif

}  // namespace amkl::cuda::sm90
