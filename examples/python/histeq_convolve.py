#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""numpy frames through appsrc → cudahisteq → cudaconvolve → appsink, from Python.

GStreamer pads GRAY8 rows to 4 bytes: a 397-pixel-wide frame has rows of 400 bytes in the caps' layout, while a
numpy array of shape (height, 397) has rows of 397. Either tell GStreamer the real stride with a GstVideoMeta
(--layout meta, the default) or copy the rows into an array padded to the caps' stride (--layout padded).
(--layout tight pushes the bare numpy rows: the elements refuse them with an error saying what the caps need.)

While playing, the script changes the CLAHE clip limit and then sets a convolution kernel, reads the statistics
that cudahisteq posts on the bus for every frame, and compares every output frame with OpenCV (cv2.createCLAHE,
cv2.filter2D): it exits 1 when a pixel or a message differs. Needs python3-gi, gir1.2-gstreamer-1.0,
gir1.2-gst-plugins-base-1.0, python3-numpy and python3-opencv; the plugin from GST_PLUGIN_PATH or the system.

    python3 examples/python/histeq_convolve.py [--width 397] [--height 241] [--layout meta|padded|tight]
"""
import argparse
import os
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst, GstApp, GstVideo  # noqa: E402  (after require_version)

import cv2  # noqa: E402
import numpy as np  # noqa: E402

FRAMES = 12
TILES = (8, 8)  # tiles-x, tiles-y: OpenCV's tileGridSize is (columns, rows) too
BINOMIAL = "1 2 1; 2 4 2; 1 2 1"  # divisor 0 = sum of the taps = 16


def settings_for(frame):
    """The clip limit and kernel text (None = identity: passthrough) in force for frame `frame`."""
    clip_limit = 2.0 if frame < 4 else 4.0
    kernel = BINOMIAL if frame >= 8 else None
    return clip_limit, kernel


def scene(width, height, frame):
    """A dim, noisy frame with structure for CLAHE to find (a gradient, a bright bar that moves, noise)."""
    rng = np.random.default_rng(frame)
    y, x = np.mgrid[0:height, 0:width]
    image = 40 + 30 * x / max(width - 1, 1) + 20 * np.sin(y / 9.0)
    image[:, (frame * 7) % width: (frame * 7) % width + 12] += 60
    image += rng.normal(0, 6, size=image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def buffer_from(frame, layout, caps_stride, pts):
    """A GstBuffer holding `frame` in the given layout."""
    height, width = frame.shape
    if layout == "padded":
        padded = np.zeros((height, caps_stride), dtype=np.uint8)
        padded[:, :width] = frame
        buffer = Gst.Buffer.new_wrapped(padded.tobytes())
    else:
        buffer = Gst.Buffer.new_wrapped(np.ascontiguousarray(frame).tobytes())
        if layout == "meta":
            GstVideo.buffer_add_video_meta_full(buffer, GstVideo.VideoFrameFlags.NONE, GstVideo.VideoFormat.GRAY8,
                                                width, height, 1, [0, 0, 0, 0], [width, 0, 0, 0])
    buffer.pts = pts
    buffer.duration = Gst.SECOND // 30
    return buffer


def frame_from(sample):
    """The GRAY8 pixels of an output sample as a (height, width) array, whatever its stride."""
    info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
    buffer = sample.get_buffer()
    meta = GstVideo.buffer_get_video_meta(buffer)
    offset, stride = (meta.offset[0], meta.stride[0]) if meta else (info.offset[0], info.stride[0])
    ok, mapped = buffer.map(Gst.MapFlags.READ)
    if not ok:
        raise RuntimeError("cannot map an output buffer")
    try:
        rows = np.frombuffer(mapped.data, dtype=np.uint8, count=stride * (info.height - 1) + info.width, offset=offset)
        return np.lib.stride_tricks.as_strided(rows, (info.height, info.width), (stride, 1)).copy()
    finally:
        buffer.unmap(mapped)


def opencv_output(frame, clip_limit, kernel):
    """What the pipeline should give for `frame`: CLAHE as cv2.createCLAHE, then the kernel as cv2.filter2D."""
    out = cv2.createCLAHE(clipLimit=clip_limit, tileGridSize=TILES).apply(frame)
    if kernel:
        taps = np.array([[float(v) for v in row.split()] for row in kernel.split(";")], dtype=np.float32)
        out = cv2.filter2D(out, -1, taps / taps.sum(), borderType=cv2.BORDER_REFLECT_101)
    return out


def histogram_of(statistics):
    """The "histogram" array of a cudahisteq message. PyGObject reads no GstValueArray field without gst-python's
    overrides (python3-gst-1.0), so this reads the structure's text: histogram=(uint)< 3, 0, 12, ... >."""
    text = statistics.to_string()
    values = text[text.index("histogram=") :].split("<", 1)[1].split(">", 1)[0]
    return [int(v) for v in values.split(",")]


def histeq_messages(bus):
    """The cudahisteq element messages waiting on the bus; raises on an error message."""
    messages = []
    while True:
        message = bus.pop_filtered(Gst.MessageType.ELEMENT | Gst.MessageType.ERROR | Gst.MessageType.WARNING)
        if message is None:
            return messages
        if message.type == Gst.MessageType.ERROR:
            error, debug = message.parse_error()
            raise RuntimeError(f"{message.src.get_name()}: {error.message}")
        if message.type == Gst.MessageType.WARNING:
            warning, _ = message.parse_warning()
            print(f"warning from {message.src.get_name()}: {warning.message}")
        elif message.get_structure().get_name() == "cudahisteq":
            messages.append(message.get_structure())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--width", type=int, default=397)
    parser.add_argument("--height", type=int, default=241)
    parser.add_argument("--layout", choices=["meta", "padded", "tight"], default="meta")
    parser.add_argument("--backend", default=os.environ.get("BACKEND", "auto"))
    args = parser.parse_args()

    Gst.init(None)
    caps = f"video/x-raw,format=GRAY8,width={args.width},height={args.height},framerate=30/1"
    caps_stride = GstVideo.VideoInfo.new_from_caps(Gst.Caps.from_string(caps)).stride[0]
    # pipeline-depth=1: each frame leaves the element before the next one enters, so a property set between two
    # pushes applies from a known frame on and every output can be checked. A live application keeps the default
    # depth (2) and its changes apply from whichever frame is next.
    pipeline = Gst.parse_launch(
        f"appsrc name=src format=time caps={caps} "
        f"! cudahisteq name=histeq mode=clahe tiles-x={TILES[0]} tiles-y={TILES[1]} post-messages=true "
        f"pipeline-depth=1 backend={args.backend} "
        f"! cudaconvolve name=convolve pipeline-depth=1 backend={args.backend} "
        f"! appsink name=sink sync=false")
    source, histeq, convolve, sink = (pipeline.get_by_name(n) for n in ("src", "histeq", "convolve", "sink"))
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    print(f"{args.width}x{args.height} GRAY8 ({args.layout} rows; the caps' stride is {caps_stride} bytes), "
          f"backend {args.backend}")

    differing_frames = 0
    try:
        for index in range(FRAMES):
            clip_limit, kernel = settings_for(index)
            histeq.set_property("clip-limit", clip_limit)
            convolve.set_property("kernel", kernel or "")
            frame = scene(args.width, args.height, index)
            source.push_buffer(buffer_from(frame, args.layout, caps_stride, index * Gst.SECOND // 30))
            sample = sink.try_pull_sample(10 * Gst.SECOND)
            messages = histeq_messages(bus)
            if sample is None:
                raise RuntimeError(f"no output for frame {index}")
            got = frame_from(sample)
            want = opencv_output(frame, clip_limit, kernel)
            differing = int(np.count_nonzero(got != want))
            statistics_ok = (len(messages) == 1 and
                             histogram_of(messages[0]) == np.bincount(frame.ravel(), minlength=256).tolist())
            print(f"frame {index:2}: clip-limit {clip_limit}, kernel {kernel or 'identity'}: {differing} pixels "
                  f"differ from OpenCV; cudahisteq message: "
                  + (f"mean {messages[0].get_value('mean'):.1f}, min {messages[0].get_value('min')}, "
                     f"max {messages[0].get_value('max')}, histogram {'=' if statistics_ok else '!='} the input's"
                     if messages else "none"))
            if differing or not statistics_ok:
                differing_frames += 1
        print(f"active backend: {histeq.get_property('active-backend')}")
        source.end_of_stream()
        bus.timed_pop_filtered(10 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    except RuntimeError as error:
        print(f"error: {error}")
        return 2
    finally:
        pipeline.set_state(Gst.State.NULL)
    print(f"{FRAMES - differing_frames} of {FRAMES} frames equal to OpenCV with their cudahisteq message")
    return 1 if differing_frames else 0


if __name__ == "__main__":
    sys.exit(main())
