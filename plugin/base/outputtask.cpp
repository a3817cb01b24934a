// SPDX-License-Identifier: LGPL-2.1-or-later
// The output task of GstCfFilter (see outputtask.h).
#include "base/outputtask.h"

#include "base/filterstate.h"
#include "base/framepipeline.h"

GST_DEBUG_CATEGORY_EXTERN(gst_cf_filter_debug);
#define GST_CAT_DEFAULT gst_cf_filter_debug

namespace gstcudafilters {

namespace {

GstPadActivateModeFunction parent_src_activate_mode = nullptr;

void output_loop(GstCfFilter* self) {
    FilterPrivate* p = priv_of(self);
    std::unique_lock<std::mutex> lock(p->pipeLock);
    while (!p->taskStop) push_next(self, lock);
}

// Before the src pad deactivates: the task is told to return and joined, so nothing is pushed from a pad that is
// going away.
gboolean src_activate_mode(GstPad* pad, GstObject* parent, GstPadMode mode, gboolean active) {
    if (!active) stop_output_task(GST_CF_FILTER(parent));
    return parent_src_activate_mode ? parent_src_activate_mode(pad, parent, mode, active) : TRUE;
}

}  // namespace

void ensure_output_task(GstCfFilter* self) {
    FilterPrivate* p = priv_of(self);
    if (p->taskRunning || p->taskStop) return;
    if (p->outputThread.joinable()) p->outputThread.join();  // returned after a stop; nothing runs there now
    p->outputThread = std::thread(output_loop, self);
    p->taskRunning = true;
}

void stop_output_task(GstCfFilter* self) {
    FilterPrivate* p = priv_of(self);
    {
        std::lock_guard<std::mutex> lock(p->pipeLock);
        p->taskStop = true;
    }
    p->pipeChanged.notify_all();
    if (p->outputThread.joinable()) p->outputThread.join();
    std::lock_guard<std::mutex> lock(p->pipeLock);
    p->taskRunning = false;
}

void allow_output_task(GstCfFilter* self) {
    FilterPrivate* p = priv_of(self);
    std::lock_guard<std::mutex> lock(p->pipeLock);
    p->taskStop = false;
}

void install_output_task(GstCfFilter* self) {
    GstPad* src = GST_BASE_TRANSFORM_SRC_PAD(self);
    if (!parent_src_activate_mode) parent_src_activate_mode = GST_PAD_ACTIVATEMODEFUNC(src);
    gst_pad_set_activatemode_function(src, src_activate_mode);
}

}  // namespace gstcudafilters
