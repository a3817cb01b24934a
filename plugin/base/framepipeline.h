// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The frame pipeline of a GstCfFilter: frames enter their slot (submit, on the streaming thread) and leave in order
// as soon as they are complete, with the serialized events between them kept in place. Whoever is free sends the
// head: the output task (outputtask.h), or the streaming thread itself when it finds pipeline-depth frames in flight
// (frames come faster than they finish) and the task has not taken the oldest yet. Work objects are built and
// rebuilt from the settings; CUDA failures fall back to the CPU (backend=auto) or become element errors. Functions
// taking a `lock` are called with FilterPrivate::pipeLock held through it (they may wait on it); the others with
// the lock held, or before the output task starts.
#include "base/filterstate.h"

#include <cudafilters/error.hpp>

#include <mutex>

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

// Starts a mapped-or-passthrough frame for `inbuf` (transfer full) once fewer than pipeline-depth frames are in
// flight, sending the oldest itself while the pipeline is full (a failed push's flow is returned, `inbuf` dropped).
// Returns with the frame in flight: the output task sends it when it is complete.
GstFlowReturn submit_frame(GstCfFilter* self, std::unique_lock<std::mutex>& lock, GstBuffer* inbuf);

// The output task's step: waits for the head of the queue and sends it downstream (an event, or a frame once
// complete). Returns when the task is asked to stop.
void push_next(GstCfFilter* self, std::unique_lock<std::mutex>& lock);

// Queues a serialized event behind the frames in flight (takes it) and returns TRUE; FALSE when nothing is in
// flight (the caller forwards it now).
gboolean queue_event(GstCfFilter* self, GstEvent* event);

// Waits until everything queued has been pushed downstream in order. Returns the first failure of those pushes (an
// element error is posted for a CUDA failure that cannot fall back), FLUSHING when a flush or stop came first.
GstFlowReturn drain(GstCfFilter* self, std::unique_lock<std::mutex>& lock);

// Drops everything queued (flush, stop, renegotiation), after the output task let go of the head and the GPU of
// its memory.
void drop_queue(GstCfFilter* self, std::unique_lock<std::mutex>& lock);

}  // namespace gstcudafilters
