// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The output task of a GstCfFilter: a thread of the element's (as `queue` has its src pad task) that pushes each
// frame as soon as its work is complete and the entries ahead of it have left (push_next, framepipeline.h), so a
// frame waits for its own work and never for the next frame. The streaming thread sends frames itself while the
// pipeline is full (submit_frame), so a non-live stream's frames need no handoff between threads. It starts with the first entry queued and stops when
// the src pad deactivates. A std::thread rather than a GstTask: GLib's thread pool hands a task over through locks
// ThreadSanitizer cannot see, and the loop needs neither the pad's stream lock nor the pool.
#include "base/gstcffilter.h"

#include <mutex>

namespace gstcudafilters {

// Starts the task unless it runs or the src pad is being deactivated. Called with the pipeline lock held.
void ensure_output_task(GstCfFilter* self);

// Stops the task and waits for it (nothing it holds stays in use); a later ensure_output_task starts it again.
// Called without the pipeline lock.
void stop_output_task(GstCfFilter* self);

// Lets ensure_output_task start the task again (a new run). Called without the pipeline lock.
void allow_output_task(GstCfFilter* self);

// Makes the src pad stop the task when it deactivates (from the element's instance init).
void install_output_task(GstCfFilter* self);

}  // namespace gstcudafilters
