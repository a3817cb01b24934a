// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The frame pipeline of a GstCfFilter: frames enter their slot (submit), leave in order once complete, with the
// serialized events between them kept in place; work objects are built and rebuilt from the settings; CUDA
// failures fall back to the CPU (backend=auto) or become element errors. Runs on the streaming thread.
#include "base/filterstate.h"

#include <cudafilters/error.hpp>

namespace gstcudafilters {

// Creates the executor for st.backend (and configures it when a format is known). Throws CudaError.
void make_executor(StreamState& st);

// Makes the work for the current settings, or updates the current one in place when only values changed. Invalid
// settings keep the previous work with a warning (FALSE with an error when there is none, or at negotiation); a
// CUDA failure is handled as one while filtering. FALSE: the stream cannot go on.
gboolean rebuild_work(GstCfFilter* self, bool atNegotiation);

// Rebuilds the work when the settings changed since it was made.
gboolean refresh_work(GstCfFilter* self);

// A CUDA failure outside a frame (negotiation, rebuild): backend=auto continues on the CPU, otherwise an element
// error naming the call. FALSE: the stream cannot go on.
gboolean handle_cuda_failure(GstCfFilter* self, const cudafilters::CudaError& error);

// Starts a mapped-or-passthrough frame for `inbuf` (transfer full).
GstFlowReturn submit_frame(GstCfFilter* self, GstBuffer* inbuf);

// Pushes the events at the head of the queue, then returns the oldest frame once the pipeline holds enough
// (transfer full; null when nothing is due).
GstFlowReturn next_output(GstCfFilter* self, GstBuffer** outbuf);

// Queues a serialized event behind the frames in flight (takes it) and returns TRUE; FALSE when no frame is in
// flight (the caller forwards it now).
gboolean queue_event(GstCfFilter* self, GstEvent* event);

// Pushes everything queued downstream in order. Returns the first failure (an element error is posted for a CUDA
// failure that cannot fall back).
GstFlowReturn drain(GstCfFilter* self);

// Drops everything queued (flush, stop), after the GPU has let go of its memory.
void drop_queue(StreamState& st);

}  // namespace gstcudafilters
