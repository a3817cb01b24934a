// SPDX-License-Identifier: LGPL-2.1-or-later
// ThreadSanitizer builds only: makes GLib's locks visible to TSan. GLib implements GMutex, GRecMutex and GCond on
// Linux with futexes inside libglib (not instrumented), so TSan sees no happens-before edge through
// GST_OBJECT_LOCK, pad stream locks or GAsyncQueue and reports every access under those locks as a race. These
// definitions interpose the exported functions (the executable is linked with -rdynamic, so libgstreamer and the
// plugin bind to them), annotate the lock operations for TSan and call GLib's own implementation.
#include <glib.h>
#include <sanitizer/tsan_interface.h>

#include <dlfcn.h>

namespace {

template <typename F>
F real(const char* name) {
    return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" {

void g_mutex_lock(GMutex* m) {
    static auto fn = real<void (*)(GMutex*)>("g_mutex_lock");
    __tsan_mutex_pre_lock(m, 0);
    fn(m);
    __tsan_mutex_post_lock(m, 0, 0);
}

gboolean g_mutex_trylock(GMutex* m) {
    static auto fn = real<gboolean (*)(GMutex*)>("g_mutex_trylock");
    __tsan_mutex_pre_lock(m, __tsan_mutex_try_lock);
    const gboolean ok = fn(m);
    __tsan_mutex_post_lock(m, __tsan_mutex_try_lock | (ok ? 0 : __tsan_mutex_try_lock_failed), 0);
    return ok;
}

void g_mutex_unlock(GMutex* m) {
    static auto fn = real<void (*)(GMutex*)>("g_mutex_unlock");
    __tsan_mutex_pre_unlock(m, 0);
    fn(m);
    __tsan_mutex_post_unlock(m, 0);
}

void g_rec_mutex_lock(GRecMutex* m) {
    static auto fn = real<void (*)(GRecMutex*)>("g_rec_mutex_lock");
    __tsan_mutex_pre_lock(m, __tsan_mutex_write_reentrant);
    fn(m);
    __tsan_mutex_post_lock(m, __tsan_mutex_write_reentrant, 0);
}

gboolean g_rec_mutex_trylock(GRecMutex* m) {
    static auto fn = real<gboolean (*)(GRecMutex*)>("g_rec_mutex_trylock");
    __tsan_mutex_pre_lock(m, __tsan_mutex_write_reentrant | __tsan_mutex_try_lock);
    const gboolean ok = fn(m);
    __tsan_mutex_post_lock(m, __tsan_mutex_write_reentrant | __tsan_mutex_try_lock |
                                  (ok ? 0 : __tsan_mutex_try_lock_failed), 0);
    return ok;
}

void g_rec_mutex_unlock(GRecMutex* m) {
    static auto fn = real<void (*)(GRecMutex*)>("g_rec_mutex_unlock");
    __tsan_mutex_pre_unlock(m, 0);
    fn(m);
    __tsan_mutex_post_unlock(m, 0);
}

// The wait releases the mutex and takes it again inside GLib.
void g_cond_wait(GCond* c, GMutex* m) {
    static auto fn = real<void (*)(GCond*, GMutex*)>("g_cond_wait");
    __tsan_mutex_pre_unlock(m, 0);
    __tsan_mutex_post_unlock(m, 0);
    fn(c, m);
    __tsan_mutex_pre_lock(m, 0);
    __tsan_mutex_post_lock(m, 0, 0);
}

gboolean g_cond_wait_until(GCond* c, GMutex* m, gint64 end) {
    static auto fn = real<gboolean (*)(GCond*, GMutex*, gint64)>("g_cond_wait_until");
    __tsan_mutex_pre_unlock(m, 0);
    __tsan_mutex_post_unlock(m, 0);
    const gboolean ok = fn(c, m, end);
    __tsan_mutex_pre_lock(m, 0);
    __tsan_mutex_post_lock(m, 0, 0);
    return ok;
}

}  // extern "C"
